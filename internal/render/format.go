package render

import (
	"fmt"
	"math"
	"strings"
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
	return signed(*x, 1) + "%"
}

// SignedPP formats a Δ in percentage points with its sign and two
// decimals ("+0.03 pp"; one that rounds to zero "+0.00 pp"), "n/a" when
// absent: the comparison's Δ, on the site and in Markdown.
func SignedPP(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return signed(*x, 2) + " pp"
}

// signed formats x with its sign and prec decimals; a value that rounds
// to zero is "+0.0…", never "-0.00": a Δ too small to show is no move, and
// a reader takes "-0.00 pp" for a small improvement.
func signed(x float64, prec int) string {
	s := fmt.Sprintf("%+.*f", prec, x)
	if strings.Trim(s, "-0.") == "" {
		return "+" + s[1:]
	}
	return s
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
		return signed(v, 2) + " %"
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
