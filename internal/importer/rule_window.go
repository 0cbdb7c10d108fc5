package importer

import "sort"

// versionWindow applies the version rule: of the numbered vLLM versions
// present among the rows, the latest Options.Versions are kept and every
// other row still in is excluded (ReasonOldVersion). It returns the kept
// and the present versions, ascending.
func (b *builder) versionWindow() (kept, present []vllmVersion) {
	seen := map[vllmVersion]bool{}
	for _, c := range b.cands {
		if c.numbered && !seen[c.version] {
			seen[c.version] = true
			present = append(present, c.version)
		}
	}
	sort.Slice(present, func(i, j int) bool { return present[i].less(present[j]) })
	kept = present
	if len(kept) > b.opts.Versions {
		kept = kept[len(kept)-b.opts.Versions:]
	}
	keep := map[vllmVersion]bool{}
	for _, v := range kept {
		keep[v] = true
	}
	for _, c := range b.cands {
		if c.reason == "" && !keep[c.version] {
			c.reason = ReasonOldVersion
		}
	}
	return kept, present
}
