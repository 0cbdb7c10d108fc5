package render

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
)

// chart is one line chart of the site, drawn as inline SVG: a title and a
// description (its text alternative, with a table of the same figures
// beside it on the page), axes with ticks, and one polyline per series with
// a mark at each point.
type chart struct {
	// ID prefixes the element ids of the chart's title and description.
	ID, Title, Desc string
	XLabel, YLabel  string
	// XTicks label the x axis; nil: numeric ticks.
	XTicks []chartTick
	Series []chartSeries
	// Groups, when set, are the chart's marks: one link per x position (a
	// snapshot), holding that position's mark of every series.
	Groups []chartGroup
	// ClipY, when positive and below the largest value, is where the y
	// axis stops (rounded up to a tick): a value above it is drawn at the
	// top edge as a triangle with its figure beside it (clipped), so one
	// far-off value does not flatten every other line.
	ClipY float64
}

type chartTick struct {
	X     float64
	Label string
}

type chartSeries struct {
	Name string
	// Class is the series' colour class (s1 … s4).
	Class  string
	Dashed bool
	Points []chartPoint
}

// chartPoint is one mark; Y nil: no value there (the line breaks).
type chartPoint struct {
	X     float64
	Y     *float64
	Title string
	// Saturated rings the mark: the simulator fell behind the offered
	// load there.
	Saturated bool
}

// chartGroup links the marks at one x position.
type chartGroup struct {
	X          float64
	Href, Data string
	Title      string
	// Experimental draws the marks hollow (an experimental snapshot).
	Experimental bool
}

// Geometry of every chart's viewBox. A chart is as wide as its page (the
// SVG scales to the width); on a phone the stylesheet sets its text in
// phoneFont user units, so the room for labels is reckoned at that size
// (charWidth per character), and the y axis' title stands clear of the
// widest tick label.
const (
	chartW, chartH              = 800.0, 330.0
	padRight, padTop, padBottom = 24.0, 16.0, 72.0
	plotH                       = chartH - padTop - padBottom
	markRadius                  = 4.5
	maxXTickLabels              = 8
	yTicks                      = 5
	phoneFont                   = 22.0
	charWidth                   = phoneFont * 0.6
	yTitleX                     = phoneFont / 2
	tickLabelGap                = 8.0
	xTickOffset, xTitleOffset   = phoneFont + 4, 2*phoneFont + 16
	minPadLeft                  = yTitleX + phoneFont/2 + tickLabelGap
)

// textWidth is how wide text is drawn at phoneFont, at most.
func textWidth(text string) float64 { return float64(len([]rune(text))) * charWidth }

// niceStep is a round tick step (1, 2 or 5 × 10^k) near span/n.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// tickText formats a tick value without trailing zeros.
func tickText(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// svg draws c.
func (c chart) svg() template.HTML {
	minX, maxX := math.Inf(1), math.Inf(-1)
	maxY := 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			minX, maxX = math.Min(minX, p.X), math.Max(maxX, p.X)
			if p.Y != nil {
				maxY = math.Max(maxY, *p.Y)
			}
		}
	}
	if math.IsInf(minX, 0) {
		minX, maxX = 0, 1
	}
	switch {
	case c.XTicks == nil && minX == maxX && minX > 0:
		minX, maxX = 0, 2*maxX // one load: in the middle, seen without scrolling on a phone
	case c.XTicks == nil && minX > 0:
		minX = 0 // loads: the axis starts at zero
	}
	if maxX == minX {
		minX, maxX = minX-1, maxX+1
	}
	if c.ClipY > 0 && maxY > c.ClipY {
		maxY = c.ClipY
	}
	step := niceStep(maxY, yTicks)
	top := math.Ceil(maxY/step) * step
	if top == 0 {
		top = step
	}
	var yLabels []string
	for y := 0.0; y <= top+step/2; y += step {
		yLabels = append(yLabels, tickText(y))
	}
	widest := 0.0
	for _, l := range yLabels {
		widest = math.Max(widest, textWidth(l))
	}
	padLeft := minPadLeft + widest + tickLabelGap
	plotW := chartW - padLeft - padRight
	sx := func(x float64) float64 { return padLeft + (x-minX)/(maxX-minX)*plotW }
	sy := func(y float64) float64 { return padTop + plotH - math.Min(y, top)/top*plotH }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, `<svg viewBox="0 0 %d %d" role="img" aria-labelledby="%s-title %s-desc">`,
		int(chartW), int(chartH), c.ID, c.ID)
	fmt.Fprintf(&b, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, c.ID, e(c.Title), c.ID, e(c.Desc))
	for k, l := range yLabels {
		y := float64(k) * step
		fmt.Fprintf(&b, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f(padLeft), f(sy(y)), f(padLeft+plotW), f(sy(y)))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`, f(padLeft-tickLabelGap), f(sy(y)), e(l))
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f(padLeft), f(padTop+plotH), f(padLeft+plotW), f(padTop+plotH))
	fmt.Fprintf(&b, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f(padLeft), f(padTop), f(padLeft), f(padTop+plotH))
	ticks := c.XTicks
	if ticks == nil {
		xs := niceStep(maxX-minX, 6)
		for x := math.Ceil(minX/xs) * xs; x <= maxX+xs/1000; x += xs {
			ticks = append(ticks, chartTick{X: x, Label: tickText(x)})
		}
	}
	// As many labels as fit side by side at the phone's size, at most
	// maxXTickLabels: the first, the last and evenly between.
	widestX := 0.0
	for _, t := range ticks {
		widestX = math.Max(widestX, textWidth(t.Label))
	}
	fit := max(2, min(maxXTickLabels, int(plotW/(widestX+2*tickLabelGap))))
	every := (len(ticks) + fit - 1) / fit
	last := len(ticks) - 1
	for i, t := range ticks {
		// Every every-th label and the last, none so close before the last
		// that the two would overlap.
		if i != last && (i%every != 0 || last-i < every) {
			continue
		}
		anchor := "middle"
		switch {
		case len(ticks) > 1 && i == 0 && c.XTicks != nil:
			anchor = "start"
		case len(ticks) > 1 && i == len(ticks)-1 && c.XTicks != nil:
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="%s">%s</text>`, f(sx(t.X)), f(padTop+plotH+xTickOffset), anchor, e(t.Label))
	}
	fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, f(padLeft+plotW/2), f(padTop+plotH+xTitleOffset), e(c.XLabel))
	fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" dominant-baseline="middle" transform="rotate(-90 %s %s)">%s</text>`,
		f(yTitleX), f(padTop+plotH/2), f(yTitleX), f(padTop+plotH/2), e(c.YLabel))
	for _, s := range c.Series {
		var run []string
		flush := func() {
			if len(run) > 1 {
				dashed := ""
				if s.Dashed {
					dashed = " dashed"
				}
				fmt.Fprintf(&b, `<polyline class="%s%s" points="%s"/>`, s.Class, dashed, strings.Join(run, " "))
			}
			run = nil
		}
		for _, p := range s.Points {
			if p.Y == nil {
				flush()
				continue
			}
			run = append(run, f(sx(p.X))+","+f(sy(*p.Y)))
		}
		flush()
	}
	// Marks closer than their size (a year of nightlies) shrink to fit,
	// and each x position's link takes its whole column, so that every
	// snapshot stays reachable from the chart.
	r, dense := markRadius, false
	if c.Groups != nil && len(c.Groups) > 1 {
		if gap := plotW / (maxX - minX); gap < 2*markRadius+2 {
			r, dense = math.Max(1.5, gap*0.4), true
		}
	}
	markRadius := r
	// The figures of the marks off the scale, drawn after the marks.
	type clipLabel struct {
		x, at, y, lo, hi float64
		anchor, text     string
	}
	var clipLabels []clipLabel
	mark := func(s chartSeries, p chartPoint) {
		if p.Y == nil {
			return
		}
		x, y := sx(p.X), sy(*p.Y)
		if *p.Y > top {
			// Off the scale: a triangle pointing up at the top edge, and
			// the figure beside it.
			fmt.Fprintf(&b, `<polygon class="%s clipped" points="%s,%s %s,%s %s,%s"><title>%s</title></polygon>`, s.Class,
				f(x-markRadius-1), f(y+markRadius), f(x+markRadius+1), f(y+markRadius), f(x), f(y-markRadius-1), e(p.Title+" (off the scale)"))
			// The figure on the mark's right, or on its left where it
			// would run past the chart's right edge.
			text := tickText(math.Round(*p.Y*10) / 10)
			w := textWidth(text)
			l := clipLabel{x: x, at: x + markRadius + 4, y: y + markRadius, anchor: "start", text: text}
			l.lo, l.hi = l.at, l.at+w
			if l.hi > chartW {
				l.at, l.anchor = x-markRadius-4, "end"
				l.lo, l.hi = l.at-w, l.at
			}
			clipLabels = append(clipLabels, l)
			return
		}
		if p.Saturated {
			fmt.Fprintf(&b, `<circle class="saturated" cx="%s" cy="%s" r="%s"/>`, f(x), f(y), f(2*markRadius))
		}
		fmt.Fprintf(&b, `<circle class="%s" cx="%s" cy="%s" r="%s"><title>%s</title></circle>`, s.Class, f(x), f(y), f(markRadius), e(p.Title))
	}
	if c.Groups == nil {
		for _, s := range c.Series {
			for _, p := range s.Points {
				mark(s, p)
			}
		}
	}
	for _, g := range c.Groups {
		class := "mark"
		if g.Experimental {
			class += " experimental"
		}
		fmt.Fprintf(&b, `<a class="%s" href="%s" data-snapshot="%s"><title>%s</title>`, class, e(g.Href), e(g.Data), e(g.Title))
		if dense {
			w := plotW / (maxX - minX)
			fmt.Fprintf(&b, `<rect class="hit" x="%s" y="%s" width="%s" height="%s"/>`, f(sx(g.X)-w/2), f(padTop), f(w), f(plotH))
		}
		for _, s := range c.Series {
			for _, p := range s.Points {
				if p.X == g.X {
					mark(s, p)
				}
			}
		}
		b.WriteString(`</a>`)
	}
	// Newest (rightmost) first, each figure left out where it would
	// overlap one drawn already (at a phone's text size): its triangle's
	// title and the table under the chart hold it.
	slices.SortStableFunc(clipLabels, func(a, b clipLabel) int { return cmp.Compare(b.x, a.x) })
	var drawn []clipLabel
	for _, l := range clipLabels {
		if slices.ContainsFunc(drawn, func(d clipLabel) bool { return l.lo < d.hi+tickLabelGap && d.lo < l.hi+tickLabelGap }) {
			continue
		}
		drawn = append(drawn, l)
		fmt.Fprintf(&b, `<text class="clip-label" x="%s" y="%s" text-anchor="%s">%s</text>`, f(l.at), f(l.y), l.anchor, e(l.text))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
