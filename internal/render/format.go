package render

import (
	"fmt"
	"math"
)

// Pct formats a percentage with one decimal, "n/a" when absent.
func Pct(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", *x)
}

// SignedPct formats a signed percentage with its sign, "n/a" when absent.
func SignedPct(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", *x)
}

// spacedPct is a percentage as a sentence writes it: "35.9 %".
func spacedPct(x float64) string { return fmt.Sprintf("%.1f %%", x) }

// Ratio shows a ratio of predictions as the change it is, in whole
// percent from 1 % on: 1.2 is "+20 %", 0.95 "-5 %", 1.004 "+0.4 %", 1.0004
// "+0.04 %", exactly 1 "±0 %"; "n/a" when absent.
func Ratio(r *float64) string {
	if r == nil {
		return "n/a"
	}
	v := (*r - 1) * 100
	switch {
	case v == 0:
		return "±0 %"
	case math.Abs(v) < 0.05:
		return fmt.Sprintf("%+.2f %%", v)
	case math.Abs(v) < 0.95:
		return fmt.Sprintf("%+.1f %%", v)
	}
	return fmt.Sprintf("%+.0f %%", v)
}

// Count is n and noun, plural unless n is 1: "1 point", "46 common points".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
