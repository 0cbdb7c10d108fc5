package lbrun

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// The user-model store (`--user-models DIR`, LEADERBOARD_USER_MODELS) holds
// the config.json of models the build and its catalog lack, as
// <DIR>/<short name>/config.json (simcli.ModelShortName, the layout of
// the build's model_configs/), each checked by
// leaderboard.CheckModelConfig when it is stored and again when it is
// read. Everything is read and written through an os.Root of DIR: a
// symbolic link in it is refused, nothing lands outside it.

// ErrModelKnown is StoreUserModel's refusal of a model the build or its
// catalog has: its own config is the one the simulator takes.
var ErrModelKnown = errors.New("the simulator build or its catalog has this model")

// ErrModelStored is StoreUserModel's refusal of a model the store holds
// with another config: results ran on the stored one.
var ErrModelStored = errors.New("the user-model store holds another config for this model")

// userModelPath is the store's file of the model named short.
func userModelPath(short string) (string, error) {
	p := path.Join(short, leaderboard.UserModelConfigFile)
	if !fs.ValidPath(p) || short == "" || short == "." || short == ".." || path.Dir(p) != short {
		return "", fmt.Errorf("model folder %q is not a plain directory name", short)
	}
	return p, nil
}

// userModel reads the stored config of the model named short (ok false
// when the store has none, or it is unreadable or no longer checks).
func (s *Sim) userModel(short string) (string, bool) {
	if s.UserModels == "" {
		return "", false
	}
	raw, err := readUserModel(s.UserModels, short)
	if err != nil {
		return "", false
	}
	return string(raw), true
}

func readUserModel(dir, short string) ([]byte, error) {
	p, err := userModelPath(short)
	if err != nil {
		return nil, err
	}
	t, err := diskio.OpenTree(dir)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	raw, err := t.ReadMax(p, leaderboard.MaxModelConfigBytes)
	if err != nil {
		return nil, err
	}
	if err := leaderboard.CheckModelConfig(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return raw, nil
}

// userModelNames lists the models of the store dir whose config reads and
// checks (none when dir is "" or missing).
func userModelNames(dir string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the user-model store: %w", err)
	}
	var out []string
	for _, e := range entries {
		if _, err := readUserModel(dir, e.Name()); err == nil {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// StoreUserModel checks config (leaderboard.CheckModelConfig) and stores
// it in s's user-model store as the config of model, atomically. A model
// the build or catalog has is refused (ErrModelKnown), and so is one the
// store has with other bytes (ErrModelStored); the same bytes again are
// stored already (stored false). s must have a store (Sim.UserModels).
func (s *Sim) StoreUserModel(model string, config []byte) (stored bool, err error) {
	if s.UserModels == "" {
		return false, errors.New("this server has no user-model store (--user-models, LEADERBOARD_USER_MODELS)")
	}
	short := simcli.ModelShortName(model)
	p, err := userModelPath(short)
	if err != nil {
		return false, err
	}
	if _, known := s.modelConfig(short); known {
		return false, fmt.Errorf("%w: %s (model folder %s)", ErrModelKnown, model, short)
	}
	if err := leaderboard.CheckModelConfig(config); err != nil {
		return false, err
	}
	if err := os.MkdirAll(s.UserModels, 0o755); err != nil {
		return false, err
	}
	t, err := diskio.OpenTree(s.UserModels)
	if err != nil {
		return false, err
	}
	defer t.Close()
	old, err := t.ReadMax(p, leaderboard.MaxModelConfigBytes)
	switch {
	case err == nil && bytes.Equal(old, config):
		return false, nil
	case err == nil:
		return false, fmt.Errorf("%w: %s (%s); a config is never replaced: name the model otherwise", ErrModelStored, model, p)
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if err := t.WriteFiles(map[string][]byte{p: config}); err != nil {
		return false, err
	}
	return true, nil
}

// withUserModels adds the store's models to n's.
func (n *Names) withUserModels(dir string) error {
	user, err := userModelNames(dir)
	if err != nil {
		return err
	}
	n.Models = append(n.Models, user...)
	slices.Sort(n.Models)
	n.Models = slices.Compact(n.Models)
	return nil
}
