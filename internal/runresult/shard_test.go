package runresult

import "testing"

func TestParseShard(t *testing.T) {
	t.Parallel()
	if s, err := ParseShard(""); s != nil || err != nil {
		t.Errorf("empty: %v %v", s, err)
	}
	s, err := ParseShard("2/4")
	if err != nil || s.Index != 2 || s.Count != 4 || s.String() != "2/4" {
		t.Errorf("2/4: %+v %v", s, err)
	}
	var none *Shard
	if none.String() != "" {
		t.Error("nil shard does not print empty")
	}
	for _, bad := range []string{"0/4", "5/4", "1/0", "x/2", "2", "1/2/3", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
