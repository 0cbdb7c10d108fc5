// Package pool runs a fixed set of independent tasks (simulations) on a
// bounded number of workers, the most expensive first.
//
// With a few workers and tasks of unequal cost, the wall time is decided by
// the tail: a long task started last runs alone while the other workers
// idle. Starting tasks in decreasing order of expected cost (the
// longest-processing-time-first rule) keeps that tail short: its makespan is
// at most 4/3 of the best possible one, and close to the total cost divided
// by the workers when no single task dominates. Costs only need to order the
// tasks; their unit does not matter.
package pool

import (
	"context"
	"runtime"
	"sort"
	"sync"
)

// LongestFirst returns the indices of costs ordered by decreasing cost; equal
// costs keep their index order, so the order is deterministic.
func LongestFirst(costs []float64) []int {
	order := make([]int, len(costs))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return costs[order[a]] > costs[order[b]] })
	return order
}

// Run calls task(ctx, i) once for every i in [0, len(costs)), on at most
// workers goroutines at a time (workers <= 0: one per CPU), starting the
// tasks in LongestFirst order. It returns when every started task has
// returned. Once ctx is done no further task is started; tasks already
// running get ctx and should stop early. task must be safe for concurrent use
// and writes its result where the caller reads it (e.g. index i of a slice).
//
// It returns the number of tasks started (len(costs) unless ctx was done).
func Run(ctx context.Context, workers int, costs []float64, task func(ctx context.Context, i int)) int {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if workers > len(costs) {
		workers = len(costs)
	}
	order := LongestFirst(costs)
	var mu sync.Mutex
	started := 0
	// take hands out the next task, or none once ctx is done: a worker checks
	// under the lock, so no task starts after the cancellation is seen.
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if started >= len(order) || ctx.Err() != nil {
			return 0, false
		}
		started++
		return order[started-1], true
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, ok := take(); ok; i, ok = take() {
				task(ctx, i)
			}
		}()
	}
	wg.Wait()
	return started
}
