package main

import (
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
)

// readLeaderboardPair reads the leaderboard's simulator/catalog pair from a
// pin file. A file without a leaderboard section is an error.
func readLeaderboardPair(pinFile string) (pin.LeaderboardPair, error) {
	src, err := diskio.ReadPathMax(pinFile, pin.MaxFileBytes)
	if err != nil {
		return pin.LeaderboardPair{}, fmt.Errorf("--pin: %w", err)
	}
	p, err := pin.Parse(src, pinFile)
	if err != nil {
		return pin.LeaderboardPair{}, err
	}
	if p.Leaderboard == nil {
		return pin.LeaderboardPair{}, fmt.Errorf("%s: pins no leaderboard pair: add a leaderboard: section with simulator and catalog (see docs/LEADERBOARD.md)", pinFile)
	}
	return *p.Leaderboard, nil
}
