package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/site"
)

const siteUsage = `Usage: action site [--dashboard DIR] --out SITE

Builds the dashboard's static site from its published data (data/index.json
and every snapshot it lists): index.html (the Overview of the newest
snapshot, and the comparison of any two: index.html?a=<id>&b=<id>),
history.html, a page per snapshot and per sweep of the newest snapshot,
one stylesheet, one script and each snapshot's points as a script. No CDN,
font or script from elsewhere: it works from file:// and under any path
(GitHub Pages' project pages). Open SITE/index.html to preview it.

A missing or malformed snapshot is an error naming the file, and nothing is
written. SITE is replaced as a whole: a page of a snapshot no longer listed
does not linger.

Examples:
  action site --dashboard . --out _site
  action site --dashboard docs/examples/dashboard --out docs/examples/dashboard/site

Flags:
`

// siteOptions are the flags of `action site`.
type siteOptions struct {
	dashboard, out string
}

// siteCommand is `action site`.
var siteCommand = cli.Spec[siteOptions]{
	Name:    "site",
	Summary: "build the dashboard's static site from its data/",
	Usage:   siteUsage,
	Flags: func(fs *flag.FlagSet, o *siteOptions, _ func(string) string) {
		fs.StringVar(&o.dashboard, "dashboard", ".", "the dashboard `checkout` whose data/ to show (e.g. --dashboard ~/src/accuracy-dashboard)")
		fs.StringVar(&o.out, "out", "", "the site's `directory`, replaced as a whole (e.g. --out _site)")
	},
	Required: []string{"out"},
	Check: func(_ *siteOptions, args []string) error {
		if len(args) != 0 {
			return fmt.Errorf("want no arguments, got %q", args)
		}
		return nil
	},
	Run: runSite,
}

func runSite(_ context.Context, o siteOptions, env cli.Env) error {
	n, err := site.BuildDir(o.dashboard, o.out, slog.New(slog.NewTextHandler(env.Stderr, nil)))
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	_, err = fmt.Fprintf(env.Stdout, "built %d files into %s; open %s\n", n, o.out, filepath.Join(o.out, "index.html"))
	return err
}
