package schemas

import (
	"strings"
	"testing"
)

func TestEverySchemaCompiles(t *testing.T) {
	t.Parallel()
	all, err := compiled()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Summary, Points, SummaryV1, LedgerManifest, LedgerUnit, LeaderboardRuns, LeaderboardResult} {
		if all[name] == nil {
			t.Errorf("schema %s missing", name)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	if err := Validate(LedgerManifest, []byte(`{"schema_version":1,"name":"n","version":"1","release":false}`)); err != nil {
		t.Errorf("valid manifest: %v", err)
	}
	if err := Validate(LedgerManifest, []byte(`{"schema_version":1,"name":"n","version":"1","release":false,"colour":1}`)); err == nil || !strings.Contains(err.Error(), "does not match its schema") {
		t.Errorf("unknown field: %v", err)
	}
	if err := Validate(Points, []byte(`[`)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("truncated: %v", err)
	}
	if err := Validate("nope.json", []byte(`{}`)); err == nil {
		t.Error("unknown schema name accepted")
	}
}
