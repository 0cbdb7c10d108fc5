package ghmodel

import (
	"slices"
	"strings"
	"time"
)

// HookDelivery is one delivery attempt of the App's webhook: GitHub keeps
// every attempt (the first and each redelivery) under the delivery's GUID,
// the X-GitHub-Delivery header the bot de-duplicates on.
type HookDelivery struct {
	ID          int64 // the attempt; redeliver by it
	GUID        string
	Event       string
	Action      string
	DeliveredAt time.Time
	// StatusCode is the bot's answer (0: none, e.g. it was down).
	StatusCode int
	Status     string
	Redelivery bool
}

// Succeeded reports whether the bot took the attempt (a 2xx answer).
func (d HookDelivery) Succeeded() bool { return d.StatusCode >= 200 && d.StatusCode < 300 }

// FailedDeliveries picks, from a window of attempts (any order), the
// deliveries to redeliver: one attempt (the newest) of each GUID none of
// whose attempts in the window succeeded, oldest delivery first. A
// delivery the bot took once is never picked again, so asking for the
// picks again after they succeeded picks nothing; a redelivery of one the
// bot took meanwhile is dropped by its de-duplication on the GUID.
func FailedDeliveries(attempts []HookDelivery) []HookDelivery {
	newest := map[string]HookDelivery{}
	first := map[string]time.Time{}
	took := map[string]bool{}
	for _, d := range attempts {
		if d.Succeeded() {
			took[d.GUID] = true
		}
		if n, ok := newest[d.GUID]; !ok || d.DeliveredAt.After(n.DeliveredAt) || (d.DeliveredAt.Equal(n.DeliveredAt) && d.ID > n.ID) {
			newest[d.GUID] = d
		}
		if f, ok := first[d.GUID]; !ok || d.DeliveredAt.Before(f) {
			first[d.GUID] = d.DeliveredAt
		}
	}
	var out []HookDelivery
	for guid, d := range newest {
		if !took[guid] {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b HookDelivery) int {
		if c := first[a.GUID].Compare(first[b.GUID]); c != 0 {
			return c
		}
		return strings.Compare(a.GUID, b.GUID)
	})
	return out
}
