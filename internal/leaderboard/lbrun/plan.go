package lbrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// Plan writes the simulator command for run r on s's build (leaderboard.Planner's
// planning, on the flags s probed, the model configs of its catalog,
// source tree and user-model store, and the node check of its stored traces). What the build
// cannot do is a *leaderboard.PlanError (a failed result, never a number).
func (s *Sim) Plan(r leaderboard.DeclaredRun) (leaderboard.Invocation, error) {
	return s.planner().Plan(r)
}

// Replays says whether s's build can replay r's trace workload at r's
// load (leaderboard.Planner.Replays): nil, or why every run of it would
// fail.
func (s *Sim) Replays(r leaderboard.DeclaredRun) error {
	return s.planner().Replays(r)
}

func (s *Sim) planner() *leaderboard.Planner {
	return &leaderboard.Planner{RunFlags: s.RunFlags, ReplayFlags: s.ReplayFlags, Converters: s.Converters,
		ModelConfig: s.modelConfig, Catalog: s.Catalog != "", CheckNodes: s.checkNodes, UserModel: s.userModel}
}

// modelConfig says where s finds the config of the model named short: in
// the catalog (inCatalog), else in the build's model_configs/; known is
// false when neither has it.
func (s *Sim) modelConfig(short string) (inCatalog, known bool) {
	if s.Catalog != "" && fileExists(filepath.Join(s.Catalog, "models", short, "config.json")) {
		return true, true
	}
	return false, fileExists(filepath.Join(s.Build.DataDir, "model_configs", short, "config.json"))
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Check reads the results directory dir (through OpenDir) and checks it
// against d as leaderboard.Check does, and every result's recorded command
// against the plan of its declaration (leaderboard.CheckPlans): every problem, sorted
// by file.
func Check(d *leaderboard.Declaration, dir string, pinned string) (map[string]*leaderboard.Result, []leaderboard.Problem, error) {
	fsys, done, err := OpenDir(dir)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	res, probs, err := leaderboard.Check(d, fsys, pinned)
	if err != nil {
		return nil, nil, err
	}
	probs = append(probs, leaderboard.CheckPlans(res)...)
	slices.SortStableFunc(probs, func(a, b leaderboard.Problem) int { return strings.Compare(a.File, b.File) })
	return res, probs, nil
}
