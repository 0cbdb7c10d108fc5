package pool

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

func TestLongestFirst(t *testing.T) {
	t.Parallel()
	got := LongestFirst([]float64{3, 10, 1, 10, 0, 7})
	if want := []int{1, 3, 5, 0, 2, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("LongestFirst = %v, want %v (decreasing cost, ties in index order)", got, want)
	}
	if got := LongestFirst(nil); len(got) != 0 {
		t.Errorf("LongestFirst(nil) = %v", got)
	}
}

func TestRunStartsLongestFirstAndRunsEachOnce(t *testing.T) {
	t.Parallel()
	costs := []float64{5, 1, 9, 3, 9, 2}
	var mu sync.Mutex
	var started []int
	runs := make([]int, len(costs))
	n := Run(context.Background(), 1, costs, func(_ context.Context, i int) {
		mu.Lock()
		started = append(started, i)
		runs[i]++
		mu.Unlock()
	})
	if n != len(costs) {
		t.Errorf("started %d, want %d", n, len(costs))
	}
	if want := []int{2, 4, 0, 3, 5, 1}; !reflect.DeepEqual(started, want) {
		t.Errorf("start order with one worker = %v, want %v", started, want)
	}
	for i, r := range runs {
		if r != 1 {
			t.Errorf("task %d ran %d times", i, r)
		}
	}
}

func TestRunBoundsConcurrency(t *testing.T) {
	t.Parallel()
	const workers = 3
	costs := make([]float64, 20)
	var running, peak atomic.Int32
	// The first `workers` tasks wait until all of them run at once, proving
	// the pool does start that many; none may find more running.
	var ready sync.WaitGroup
	ready.Add(workers)
	var first atomic.Int32
	Run(context.Background(), workers, costs, func(_ context.Context, i int) {
		now := running.Add(1)
		for {
			p := peak.Load()
			if now <= p || peak.CompareAndSwap(p, now) {
				break
			}
		}
		if first.Add(1) <= workers {
			ready.Done()
			ready.Wait()
		}
		running.Add(-1)
	})
	if p := peak.Load(); p != workers {
		t.Errorf("peak concurrency %d, want %d", p, workers)
	}
}

func TestRunStopsStartingWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	n := Run(ctx, 1, make([]float64, 10), func(ctx context.Context, i int) {
		if ran.Add(1) == 3 {
			cancel()
		}
	})
	if r := ran.Load(); r != 3 || n != 3 {
		t.Errorf("after cancelling in the third task: %d ran, %d started; want 3 and 3", r, n)
	}
}
