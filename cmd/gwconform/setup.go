package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/waivers"
)

// engineSettings are the settings run, plan and probe share; each command
// adds its own (run: --waivers, --resume...). All are rows of
// conformance.SettingsTable.
var engineSettings = func() []string {
	names := []string{"config", "cases", "cases-extra", "out", "base-url"}
	for _, k := range catalog.KeyKinds {
		names = append(names, string(k)+"-base-url")
	}
	names = append(names, "public-image-url")
	for _, k := range catalog.KeyKinds {
		names = append(names, string(k)+"-key")
	}
	names = append(names, "offers", "model-map", "feature", "model", "case", "tier", "shard", "max-calls", "max-cost",
		"concurrency", "retries", "max-wait", "timeout", "connect-timeout", "header-timeout", "idle-timeout", "strict", "verbose", "header")
	for _, k := range catalog.KeyKinds {
		names = append(names, string(k)+"-header")
	}
	return append(names, "ca-cert", "insecure")
}()

// engineFlags are a command's flags: the engine's settings and its own.
type engineFlags struct {
	fs  *flag.FlagSet
	set *conformance.Settings
}

// newEngineFlags declares a command's flags. The flag set writes only the
// usage -h asks for, to stdout; a refusal is returned, said once on stderr
// by the command.
func newEngineFlags(name string, stdout io.Writer, own ...string) *engineFlags {
	fs := flag.NewFlagSet("gwconform "+name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	return &engineFlags{fs: fs, set: conformance.NewSettings(fs, append(slices.Clone(engineSettings), own...)...)}
}

// settings is what the engine flags resolve to: flags over variables over
// the config file over defaults (conformance.SettingsTable).
type settings struct {
	target    plan.Target
	selection plan.Selection
	options   execute.Options
	out       string
	casesDir  string
	// casesExtra are the --cases-extra files loaded beside the catalog.
	casesExtra []string
	// everyKey asks every configured key's list, used or not (probe lists
	// them all).
	everyKey bool
	strict   bool
	verbose  bool // the console prints every result (console.full)
	tls      execute.TLSOptions
	// waivers is the --waivers file of a run (nil: none), and waiversRef
	// names it in the manifest.
	waivers *waivers.Set
	// clients are the --clients globs of the libraries whose readiness is
	// shown, requireClients the libraries whose readiness decides.
	clients, requireClients []string
	waiversRef              *conformance.ManifestFileRef
	// record is run --record's directory; replay is run --replay's
	// recording, and replayed what was read from it when the session
	// opened (record.go).
	record, replay string
	replayed       *replayed
}

// parse reads the command line, the variables and the file, and resolves
// them into settings.
func (f *engineFlags) parse(args []string) (*settings, error) {
	if err := f.set.Parse(args); err != nil {
		return nil, err
	}
	return f.resolve()
}

// resolve turns the settings' values into the engine's types.
func (f *engineFlags) resolve() (*settings, error) {
	v := f.set
	s := &settings{strict: v.Bool("strict"), verbose: v.Bool("verbose"), out: v.String("out"), casesDir: v.String("cases"), casesExtra: v.List("cases-extra")}
	var err error
	if s.target, err = v.Target(); err != nil {
		return nil, err
	}
	shard, err := plan.ParseShard(v.String("shard"))
	if err != nil {
		return nil, fmt.Errorf("--shard: %w", err)
	}
	s.selection = plan.Selection{Features: v.List("feature"), Models: v.List("model"), Cases: v.List("case"), Tiers: v.List("tier"),
		Shard: shard, MaxCalls: v.Int("max-calls"), MaxCost: v.Float("max-cost"), From: map[string]string{}}
	for _, filter := range []string{"feature", "model", "case", "tier"} {
		s.selection.From[filter] = v.Source(filter)
	}
	s.options = execute.Options{Concurrency: v.Int("concurrency"), Timeout: v.Duration("timeout"), MaxRetries: v.Int("retries"), MaxWait: v.Duration("max-wait"), Limits: check.Limits{Thumbnails: true},
		ConnectTimeout: v.Duration("connect-timeout"), HeaderTimeout: v.Duration("header-timeout"), IdleTimeout: v.Duration("idle-timeout")}
	if s.options.MaxRetries == 0 {
		s.options.MaxRetries = -1 // Options reads 0 as "default"
	}
	s.tls = execute.TLSOptions{CACertFile: v.String("ca-cert"), Insecure: v.Bool("insecure")}
	return s, nil
}

// session is what run and probe share once their flags are read: the
// settings, the catalog, a context that Ctrl-C cancels, and the in-process
// reference gateway when no base URL is set.
type session struct {
	*settings
	suite *conformance.Suite
	ctx   context.Context
	// local is true when the run uses the in-process reference gateway.
	local bool
	// close stops the signal handler and the in-process gateway.
	close func()
}

// openSession parses the flags and starts what a run needs; adjust, when
// set, checks or changes the settings first. On failure it has printed the
// reason and returns the exit code.
func (f *engineFlags) openSession(args []string, stderr io.Writer, adjust func(*settings) error) (*session, int) {
	name := f.fs.Name()
	s, err := f.parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, exitOK // the usage is printed
	}
	if err == nil && adjust != nil {
		err = adjust(s)
	}
	if err == nil {
		err = s.target.Validate()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, exitNotStart
	}
	suite, err := conformance.LoadSuite(s.casesDir, s.casesExtra...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitNotStart
	}
	// The globs that need none of the gateway's names are checked before
	// it is called: a --feature typo costs no request. --model globs may
	// name the gateway's ids, known after its lists are read.
	early := s.selection
	early.Models = nil
	if err := errors.Join(plan.CheckOffers(suite.Catalog, s.target.Offers), plan.CheckModelMap(suite.Catalog, s.target.Names.Given), early.Check(suite.Catalog, plan.ModelNames{})); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, exitNotStart
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	local, err := connect(ctx, name, suite.Catalog, s, stderr)
	closeAll := func() {
		stop()
		if local != nil {
			local.Close()
		}
	}
	if err == nil {
		err = checkSelection(suite.Catalog, s)
	}
	if err != nil {
		closeAll()
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, exitNotStart
	}
	return &session{settings: s, suite: suite, ctx: ctx, local: local != nil, close: closeAll}, exitOK
}

// checkSelection refuses a selection or a waiver that cannot mean what was
// typed, once the gateway's names are known (a --model glob or a waiver
// may use them), and a selected spec model that several listed ids name.
func checkSelection(cat *catalog.Catalog, s *settings) error {
	names := s.target.Names
	if err := errors.Join(s.selection.Check(cat, names), s.waivers.Check(cat, names.Aliases(cat))); err != nil {
		return err
	}
	calls, err := plan.Make(cat, s.target, s.selection)
	if err != nil {
		return err
	}
	return names.Ambiguities(plan.Models(calls))
}

// connect readies what the run sends to: a replay (no gateway, no key, no
// preflight), the in-process reference gateway when no base URL is given,
// or the user's gateway, reached with the TLS settings and checked by the
// preflight. local is the in-process gateway, if started.
func connect(ctx context.Context, name string, cat *catalog.Catalog, s *settings, stderr io.Writer) (local *conformancetest.Server, err error) {
	if s.replay != "" {
		return nil, useReplay(s, stderr)
	}
	if local, err = useLocalGateway(&s.target, stderr); err != nil || local != nil {
		return local, err
	}
	if s.target.Client, err = execute.NewClient(s.tls); err != nil {
		return nil, err
	}
	if s.tls.Insecure {
		fmt.Fprintf(stderr, "%s: --insecure: the gateway's certificate is not verified; every report says so\n", name)
	}
	fmt.Fprintf(stderr, "%s: testing %s\n", name, describeTarget(s.target))
	used := plan.UsedKinds(cat, s.target, s.selection)
	if s.everyKey {
		used = nil
	}
	return nil, preflight(ctx, name, cat, &s.target, used, s.options.Timeout, stderr)
}

// preflight checks a gateway of the user's before the first planned call:
// an unreachable one, an untrusted certificate or a setup mistake (a base
// URL ending in /v1, a relay refusing the list, a key of another kind)
// stops the run at once (exit 2); a rejected key is said here, once, and its
// cases are skipped; the gateway's names for the spec's ids, read from the
// keys' lists, are said here once, and the run sends them.
func preflight(ctx context.Context, name string, cat *catalog.Catalog, t *plan.Target, used []catalog.KeyKind, timeout time.Duration, stderr io.Writer) error {
	found, err := execute.Preflight(ctx, cat, *t, used, listOptions(name, timeout, stderr))
	if err != nil {
		return err
	}
	for _, kind := range catalog.KeyKinds {
		if why, ok := found.Rejected[kind]; ok {
			fmt.Fprintf(stderr, "%s: the %s key was rejected (%s): its cases are skipped and the run is incomplete\n", name, kind, why)
		}
	}
	for _, line := range found.Names.Said() {
		fmt.Fprintf(stderr, "%s: %s\n", name, line)
	}
	t.Rejected, t.Names = found.Rejected, found.Names
	return nil
}

// listOptions bound the model lists asked outside the cases by the request
// timeout, and say on stderr which key's list a slow one is.
func listOptions(name string, timeout time.Duration, stderr io.Writer) execute.ListOptions {
	return execute.ListOptions{Timeout: timeout, Slow: func(kind catalog.KeyKind, limit time.Duration) {
		which := "the model list"
		if kind != "" {
			which = fmt.Sprintf("the %s key's model list", kind)
		}
		fmt.Fprintf(stderr, "%s: waiting for %s (GET /v1/models; up to %s, --timeout)\n", name, which, limit)
	}}
}

// describeTarget says which gateway a run tests and with which keys: its
// base URL (each kind's own, where one is given) and the key kinds set,
// never a key.
func describeTarget(t plan.Target) string {
	var b strings.Builder
	b.WriteString(redact.BaseURL(t.BaseURL))
	for _, k := range catalog.KeyKinds {
		if base := t.KindBaseURLs[k]; base != "" {
			fmt.Fprintf(&b, ", %s at %s", k, redact.BaseURL(base))
		}
	}
	var set, unset []string
	for _, k := range catalog.KeyKinds {
		if t.Keys[k] != "" {
			set = append(set, string(k))
		} else {
			unset = append(unset, string(k))
		}
	}
	switch {
	case len(set) == 0:
		b.WriteString(" with no key")
	case len(set) == 1:
		fmt.Fprintf(&b, " with the %s key", set[0])
	default:
		fmt.Fprintf(&b, " with the %s keys", words(set, "and"))
	}
	if len(unset) > 0 && len(set) > 0 {
		fmt.Fprintf(&b, " (no %s key)", words(unset, "or"))
	}
	return b.String()
}

// words joins a list as a sentence does: "a, b and c".
func words(list []string, conj string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " " + conj + " " + list[len(list)-1]
}
