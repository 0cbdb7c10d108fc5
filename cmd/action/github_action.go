package main

import (
	"context"
	"errors"
	"io"
)

// runGitHubAction is being written (issue 4); placeholder so the package builds.
func runGitHubAction(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("github-action: not implemented yet")
}
