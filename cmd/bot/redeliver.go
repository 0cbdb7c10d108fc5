package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/botconfig"
	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/github"
)

const redeliverHelp = `Usage: bot redeliver --since DURATION [--dry-run] [flags]

Asks GitHub to redeliver the App's webhook deliveries of the last DURATION
that the bot never took (no 2xx answer at any attempt: the bot was down,
overloaded or restarting), once each, oldest first. It lists them through
GET /app/hook/deliveries and redelivers each through POST
/app/hook/deliveries/{id}/attempts, with the App's key. Running it again
asks again only for those still not taken; a delivery taken meanwhile is
dropped by the bot's de-duplication on the delivery id. GitHub keeps
deliveries for 3 days. --dry-run lists them without asking.

Example:
  BOT_APP_ID=12345 BOT_PRIVATE_KEY_FILE=key.pem bot redeliver --since 6h

Flags:
`

// redeliverOptions are the flags of `bot redeliver`.
type redeliverOptions struct {
	config botconfig.Flags
	// sinceFlag is --since as given; since is it parsed.
	sinceFlag string
	since     time.Duration
	dryRun    bool
}

func redeliverCommand(e env) cli.Command {
	return cli.Spec[redeliverOptions]{Name: "redeliver", Summary: "ask GitHub to redeliver the webhook deliveries the bot missed",
		Usage: redeliverHelp, Required: []string{"since"},
		Flags: func(fs *flag.FlagSet, o *redeliverOptions, _ func(string) string) {
			configFlags(fs, &o.config)
			fs.StringVar(&o.sinceFlag, "since", "", "the `duration` to look back over, up to GitHub's 3 days (e.g. --since 6h)")
			fs.BoolVar(&o.dryRun, "dry-run", false, "list the deliveries to redeliver; ask for nothing")
		},
		Check: func(o *redeliverOptions, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected arguments %q", args)
			}
			d, err := time.ParseDuration(o.sinceFlag)
			if err != nil || d <= 0 {
				return fmt.Errorf("--since %q: want a positive duration (e.g. 6h)", o.sinceFlag)
			}
			o.since = d
			return nil
		},
		Run: func(ctx context.Context, o redeliverOptions, _ cli.Env) error { return runRedeliver(ctx, o, e) },
	}.Command()
}

func runRedeliver(ctx context.Context, o redeliverOptions, e env) error {
	cfg, err := loadConfig(o.config, botconfig.ModeCLI, e)
	if err != nil {
		return err
	}
	key, err := e.readFile(cfg.PrivateKeyFile)
	if err != nil {
		return fmt.Errorf("private key: %w", err)
	}
	baseURL := cfg.GitHubURL
	if baseURL == "" {
		baseURL = github.DefaultBaseURL
	}
	transport, err := github.NewAppTransport(cfg.AppID, key, baseURL, e.transport)
	if err != nil {
		return err
	}
	app, err := github.New(github.Options{BaseURL: baseURL, UserAgent: "accuracy-bot/" + botVersion(), Retry: e.retry,
		HTTPClient: &http.Client{Transport: transport}})
	if err != nil {
		return err
	}
	attempts, err := app.ListHookDeliveries(ctx, e.now().Add(-o.since))
	if err != nil {
		return err
	}
	failed := ghmodel.FailedDeliveries(attempts)
	fmt.Fprintf(e.stdout, "%d deliveries in the last %s, %d never taken\n", len(distinctGUIDs(attempts)), o.since, len(failed))
	var errs []error
	for _, d := range failed {
		what := fmt.Sprintf("%s %s/%s (last attempt answered %s at %s)", d.GUID, d.Event, d.Action, answer(d), d.DeliveredAt.Format(time.RFC3339))
		if o.dryRun {
			fmt.Fprintf(e.stdout, "would redeliver %s\n", what)
			continue
		}
		if err := app.RedeliverHookDelivery(ctx, d.ID); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.GUID, err))
			continue
		}
		fmt.Fprintf(e.stdout, "redelivered %s\n", what)
	}
	return errors.Join(errs...)
}

func distinctGUIDs(ds []ghmodel.HookDelivery) map[string]bool {
	m := map[string]bool{}
	for _, d := range ds {
		m[d.GUID] = true
	}
	return m
}

// answer is how the bot answered an attempt.
func answer(d ghmodel.HookDelivery) string {
	if d.StatusCode == 0 {
		return "nothing"
	}
	return fmt.Sprint(d.StatusCode)
}
