package ghmodel

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFailedDeliveries(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	attempts := []HookDelivery{
		{ID: 1, GUID: "down", DeliveredAt: at(0), StatusCode: 0},
		{ID: 2, GUID: "busy", DeliveredAt: at(1), StatusCode: 503},
		{ID: 3, GUID: "busy", DeliveredAt: at(5), StatusCode: 502, Redelivery: true},
		{ID: 4, GUID: "took", DeliveredAt: at(2), StatusCode: 202},
		{ID: 5, GUID: "later", DeliveredAt: at(3), StatusCode: 500},
		{ID: 6, GUID: "later", DeliveredAt: at(4), StatusCode: 202, Redelivery: true},
		{ID: 7, GUID: "ignored", DeliveredAt: at(6), StatusCode: 200},
		{ID: 8, GUID: "refused", DeliveredAt: at(7), StatusCode: 400},
	}
	var got []int64
	for _, d := range FailedDeliveries(attempts) {
		got = append(got, d.ID)
	}
	// Oldest delivery first, each once by its newest attempt; none the bot
	// took (2xx) at any attempt.
	if diff := cmp.Diff([]int64{1, 3, 8}, got); diff != "" {
		t.Errorf("FailedDeliveries (-want +got):\n%s", diff)
	}
	if FailedDeliveries(nil) != nil {
		t.Error("no attempts, yet picks")
	}
}
