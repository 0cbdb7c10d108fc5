package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// writeOutputs appends step outputs to the $GITHUB_OUTPUT file. Every value
// is written as name<<DELIM / value / DELIM with a random delimiter that is
// checked absent from the value, so no value can inject another output.
func writeOutputs(path string, outputs [][2]string, random io.Reader) error {
	if path == "" {
		return nil
	}
	var b strings.Builder
	for _, kv := range outputs {
		name, value := kv[0], kv[1]
		if name == "" || strings.ContainsAny(name, "<\r\n=") {
			return fmt.Errorf("output name %q", name)
		}
		delim, err := delimiter(value, random)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", name, delim, value, delim)
	}
	return appendFile(path, b.String())
}

func delimiter(value string, random io.Reader) (string, error) {
	for range 10 {
		buf := make([]byte, 16)
		if _, err := io.ReadFull(random, buf); err != nil {
			return "", fmt.Errorf("output delimiter: %w", err)
		}
		d := "ghadelimiter_" + hex.EncodeToString(buf)
		if !strings.Contains(value, d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("output delimiter: no delimiter absent from the value")
}

// appendFile appends s to path in one write.
func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
