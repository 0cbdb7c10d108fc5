package main

import "github.com/inference-sim/accuracy-dashboard/internal/testkit"

// writeFile writes a file, making its directories (testkit.WriteFile).
var writeFile = testkit.WriteFile
