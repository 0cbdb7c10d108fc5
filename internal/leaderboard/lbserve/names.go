package lbserve

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// maxNearest is how many valid names a refusal suggests at most.
const maxNearest = 3

// checkNames refuses, at declaration time, a candidate whose model or
// hardware the build (named by build) and its catalog do not run: the
// run would fail later with model- or hardware-unknown-to-simulator. Each
// message names the field, the name given and the nearest valid names.
func checkNames(c leaderboard.Candidate, n lbrun.Names, build string) []string {
	var msgs []string
	short := simcli.ModelShortName(c.Model)
	if !slices.Contains(n.Models, short) {
		org := ""
		if k := strings.LastIndex(c.Model, "/"); k >= 0 {
			org = c.Model[:k+1]
		}
		var near []string
		for _, m := range nearest(short, n.Models) {
			near = append(near, org+m)
		}
		msgs = append(msgs, fmt.Sprintf("candidate.model: %s has no model config (%s) in %s or its catalog; %s",
			c.Model, short, build, suggest(near, len(n.Models))))
	}
	if !slices.Contains(n.Hardware, c.Hardware) {
		msgs = append(msgs, fmt.Sprintf("candidate.hardware: %s is not a GPU of %s (names are case-sensitive); %s",
			c.Hardware, build, suggest(nearest(c.Hardware, n.Hardware), len(n.Hardware))))
	}
	return msgs
}

func suggest(near []string, valid int) string {
	switch {
	case valid == 0:
		return "it has none"
	case len(near) == 0:
		return "nothing is near it"
	default:
		return "nearest: " + strings.Join(near, ", ")
	}
}

// nearest returns at most maxNearest names of valid closest to name,
// ignoring case: those it begins first ("a100": A100-80), then by edit
// distance (ties in name order), each within half the longer name's
// length: a name far from every valid one gets none.
func nearest(name string, valid []string) []string {
	type cand struct {
		name   string
		prefix bool
		d      int
	}
	var cs []cand
	low := strings.ToLower(name)
	for _, v := range valid {
		d := distance(low, strings.ToLower(v))
		prefix := strings.HasPrefix(strings.ToLower(v), low)
		if prefix || d <= max(len([]rune(name)), len([]rune(v)))/2 {
			cs = append(cs, cand{v, prefix, d})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.prefix != b.prefix {
			if a.prefix {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.name, b.name))
	})
	var out []string
	for _, c := range cs[:min(len(cs), maxNearest)] {
		out = append(out, c.name)
	}
	return out
}

// distance is the Levenshtein distance of a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
