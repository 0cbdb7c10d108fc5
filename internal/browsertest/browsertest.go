// Package browsertest gives tests a real headless browser: Debian's
// chromium (installed by .ci/run), driven through the DevTools protocol
// with github.com/chromedp/chromedp. A Tab loads pages (file:// URLs
// included), evaluates expressions in them and records every console
// error, uncaught exception and failed load, so a test can require none.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// Chromium finds the headless browser. CI (CI=true) installs it and must
// run the test; elsewhere the test is skipped without it.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testkit.Missing(t, "chromium", errors.New("no chromium, chromium-browser or google-chrome on PATH"),
		"apt-get install chromium (.ci/run installs Debian's)")
	return ""
}

// Tab is one browser tab of its own headless browser.
type Tab struct {
	ctx context.Context
	mu  sync.Mutex
	// errs are the console errors, exceptions and failed loads seen.
	errs []string
}

// Open starts a headless chromium (bin) with a window of width × height
// CSS pixels and returns its tab; the browser ends with the test.
func Open(t testing.TB, bin string, width, height int) *Tab {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, height), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	tab := &Tab{ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				tab.mu.Lock()
				tab.errs = append(tab.errs, fmt.Sprintf("%s %s:%d: %s", m.Type, m.URL, m.Line, m.Text))
				tab.mu.Unlock()
			}
		}
	}()
	return tab
}

// Load navigates to url and waits, at most a minute, until the element of
// CSS selector ready is there (a page's script marks when it is done).
func (tab *Tab) Load(url, ready string) error {
	ctx, cancel := context.WithTimeout(tab.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return fmt.Errorf("load %s: %w", url, err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(ready))); err != nil {
		return fmt.Errorf("load %s: waiting for %s: %w", url, ready, err)
	}
	return nil
}

// Viewport makes the tab's viewport width × height CSS pixels, as a phone
// or a narrow window shows the page (a headless window is at least 500
// pixels wide).
func (tab *Tab) Viewport(width, height int) error {
	ctx, cancel := context.WithTimeout(tab.ctx, time.Minute)
	defer cancel()
	return chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height)))
}

// Eval evaluates the JavaScript expression in tab's page and decodes its
// value (JSON) into T.
func Eval[T any](tab *Tab, expression string) (T, error) {
	ctx, cancel := context.WithTimeout(tab.ctx, time.Minute)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expression))
}

// Screenshot is a PNG of the whole page.
func (tab *Tab) Screenshot() ([]byte, error) {
	ctx, cancel := context.WithTimeout(tab.ctx, time.Minute)
	defer cancel()
	return chromedp.Run(ctx, chromedp.FullScreenshot(100))
}

// ViewportScreenshot is a PNG of what the viewport shows.
func (tab *Tab) ViewportScreenshot() ([]byte, error) {
	ctx, cancel := context.WithTimeout(tab.ctx, time.Minute)
	defer cancel()
	return chromedp.Run(ctx, chromedp.CaptureScreenshot())
}

// Errors are the console errors, uncaught exceptions and failed loads the
// tab saw so far, one line each.
func (tab *Tab) Errors() []string {
	tab.mu.Lock()
	defer tab.mu.Unlock()
	return append([]string(nil), tab.errs...)
}
