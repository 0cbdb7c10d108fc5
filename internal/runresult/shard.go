package runresult

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseShard parses "k/n" (1 ≤ k ≤ n). An empty string is no shard (nil).
func ParseShard(s string) (*Shard, error) {
	if s == "" {
		return nil, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return nil, fmt.Errorf("shard %q: want k/n with 1 <= k <= n, e.g. 2/4", s)
	}
	return &Shard{Index: k, Count: n}, nil
}

// String is "k/n", the inverse of ParseShard ("" for nil).
func (s *Shard) String() string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}
