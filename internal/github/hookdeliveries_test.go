package github

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
)

// TestHookDeliveriesAgainstTheFake lists a window of the App's deliveries
// across pages (GitHub's cursor) and redelivers one, through the App's JWT.
func TestHookDeliveriesAgainstTheFake(t *testing.T) {
	s, c := appClient(t)
	now := time.Now().UTC().Truncate(time.Second)
	// 250 attempts, one a minute, the newest a minute ago: three pages.
	for i := 250; i >= 1; i-- {
		s.AddHookDelivery(githubfake.HookDelivery{GUID: fmt.Sprint("g-", i), Event: "release", Action: "published",
			DeliveredAt: now.Add(-time.Duration(i) * time.Minute), StatusCode: 503})
	}
	window := 180 * time.Minute
	got, err := c.ListHookDeliveries(ctx, now.Add(-window))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 180 || got[0].GUID != "g-1" || got[179].GUID != "g-180" || got[0].StatusCode != 503 || got[0].Event != "release" {
		t.Fatalf("listed %d, first %+v", len(got), got[0])
	}
	if n := s.Calls("apps/list-webhook-deliveries"); n != 2 {
		t.Errorf("%d pages fetched for a window within the first two, want 2", n)
	}
	if err := c.RedeliverHookDelivery(ctx, got[0].ID); err != nil {
		t.Fatal(err)
	}
	all := s.HookDeliveries()
	if last := all[len(all)-1]; last.GUID != "g-1" || !last.Redelivery || last.StatusCode != http.StatusAccepted {
		t.Errorf("the redelivery made %+v", last)
	}
	if err := c.RedeliverHookDelivery(ctx, 999999); err == nil {
		t.Error("redelivering an unknown attempt succeeded")
	}
}

// appClient is the fake GitHub with an App and a Client over the App's
// JWT (what bot redeliver uses).
func appClient(t *testing.T) (*githubfake.Server, *Client) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	s := githubfake.New(t, githubfake.Options{App: &githubfake.App{ID: 42, Slug: "accuracy-bot", Name: "Accuracy Bot", PublicKey: &key.PublicKey}})
	at, err := NewAppTransport(42, keyPEM, s.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := newClient(t, s, Options{HTTPClient: &http.Client{Transport: at}})
	return s, c
}

// TestHookDeliveriesBeyondThePageBoundAreAnError: a window holding more
// attempts than maxPages pages is an error, as every other listing's is,
// not the newest maxPages pages passed off as the whole window (bot
// redeliver would silently skip the oldest deliveries it missed).
func TestHookDeliveriesBeyondThePageBoundAreAnError(t *testing.T) {
	s, c := appClient(t)
	now := time.Now().UTC().Truncate(time.Second)
	n := maxPages*100 + 1
	for i := n; i >= 1; i-- {
		s.AddHookDelivery(githubfake.HookDelivery{GUID: fmt.Sprint("g-", i), Event: "release", Action: "published",
			DeliveredAt: now.Add(-time.Duration(i) * time.Second), StatusCode: 503})
	}
	got, err := c.ListHookDeliveries(ctx, now.Add(-time.Duration(n+1)*time.Second))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d pages", maxPages)) {
		t.Fatalf("%d attempts listed, err = %v; want an error saying the window is more than %d pages", len(got), err, maxPages)
	}
}
