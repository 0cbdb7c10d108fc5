package main

import (
	"context"
	"errors"
	"io"
)

// runLedgerImport is being written (issue 3); placeholder so the package builds.
func runLedgerImport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("ledger import: not implemented yet")
}
