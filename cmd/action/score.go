package main

import (
	"context"
	"errors"
	"io"
)

// runScore is being written (issue 2); placeholder so the package builds.
func runScore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("score: not implemented yet")
}

// runMerge is being written (issue 2); placeholder so the package builds.
func runMerge(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("merge: not implemented yet")
}
