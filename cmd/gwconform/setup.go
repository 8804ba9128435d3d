package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/waivers"
)

// fileConfig is the optional gwconform.yaml. It holds no keys: keys come
// from variables or flags only, so a config file can be committed safely.
type fileConfig struct {
	BaseURL        string        `yaml:"base_url"`
	PublicImageURL string        `yaml:"public_image_url"`
	Out            string        `yaml:"out"`
	Cases          string        `yaml:"cases"`
	Concurrency    int           `yaml:"concurrency"`
	Timeout        time.Duration `yaml:"timeout"`
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	HeaderTimeout  time.Duration `yaml:"header_timeout"`
	IdleTimeout    time.Duration `yaml:"idle_timeout"`
	Retries        *int          `yaml:"retries"`
	CACert         string        `yaml:"ca_cert"`
	// Headers per key kind ("all" for every request), "Name: value" each;
	// a value may name a variable (${RELAY_TOKEN}), so the file holds no
	// secret either.
	Headers map[string][]string `yaml:"headers"`
}

// allKinds is the headers key of the requests of every key kind.
const allKinds = "all"

// repeatFlag is a repeatable flag whose values may hold commas (headers).
type repeatFlag []string

func (r *repeatFlag) String() string     { return strings.Join(*r, "; ") }
func (r *repeatFlag) Set(v string) error { *r = append(*r, v); return nil }

// listFlag is a repeatable, comma-separated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// engineFlags are the flags shared by run, plan and probe.
type engineFlags struct {
	fs *flag.FlagSet

	config, casesDir, out        string
	baseURL, publicImageURL      string
	keys                         map[catalog.KeyKind]*string
	features, models, ids, tiers listFlag
	shard                        string
	maxCalls                     int
	maxCost                      float64
	concurrency, retries         int
	timeout                      time.Duration
	connectTimeout               time.Duration
	headerTimeout, idleTimeout   time.Duration
	strict                       bool
	// headers by key kind, "" for every request
	headers  map[catalog.KeyKind]*repeatFlag
	caCert   string
	insecure bool
}

func newEngineFlags(name string, stderr io.Writer) *engineFlags {
	f := &engineFlags{fs: flag.NewFlagSet("gwconform "+name, flag.ContinueOnError), keys: map[catalog.KeyKind]*string{}}
	f.fs.SetOutput(stderr)
	f.fs.StringVar(&f.config, "config", "gwconform.yaml", "optional config file (base_url, public_image_url, out, cases, concurrency, timeout, connect_timeout, header_timeout, idle_timeout, retries, ca_cert, headers; never keys)")
	f.fs.StringVar(&f.casesDir, "cases", "", "case directory (default: the embedded catalog)")
	f.fs.StringVar(&f.out, "out", "out", "output directory")
	f.fs.StringVar(&f.baseURL, "base-url", "", "gateway base URL (default $GWCONFORM_BASE_URL; unset: the in-process reference gateway)")
	f.fs.StringVar(&f.publicImageURL, "public-image-url", "", "HTTPS PNG for the URL-reference case (default $GWCONFORM_PUBLIC_IMAGE_URL)")
	for _, k := range catalog.KeyKinds {
		f.keys[k] = f.fs.String(string(k)+"-key", "", fmt.Sprintf("%s key (default $%s)", k, conformance.KeyVariables[k]))
	}
	f.fs.Var(&f.features, "feature", "feature globs, repeatable or comma-separated")
	f.fs.Var(&f.models, "model", "model globs")
	f.fs.Var(&f.ids, "case", "case id globs")
	f.fs.Var(&f.tiers, "tier", "tier globs (verified, negative, strict, explore)")
	f.fs.StringVar(&f.shard, "shard", "", "run shard i of n, as i/n")
	f.fs.IntVar(&f.maxCalls, "max-calls", 0, "make at most N calls; planned calls beyond are skipped (0: no cap)")
	f.fs.Float64Var(&f.maxCost, "max-cost", 0, "spend at most `UNITS` estimated cost units (see gwconform plan); planned calls that do not fit are skipped (0: no cap)")
	f.fs.IntVar(&f.concurrency, "concurrency", 4, "calls in flight per key")
	f.fs.IntVar(&f.retries, "retries", 2, "retries after 429/502/503/504 or a connection error before any response byte")
	f.fs.DurationVar(&f.timeout, "timeout", conformance.SpecMaxDuration, "whole-request limit (spec 8 allows 600 s; a shorter one ends a call as an error, not a verdict)")
	f.fs.DurationVar(&f.connectTimeout, "connect-timeout", 0, "limit on connecting, TLS included (default: --timeout)")
	f.fs.DurationVar(&f.headerTimeout, "header-timeout", 0, "limit until the first response byte (default: --timeout; a non-streaming image call may rightly take minutes)")
	f.fs.DurationVar(&f.idleTimeout, "idle-timeout", 0, "limit on a gap between two body bytes, SSE comments included (default: --timeout; a stream with partial_images 0 may rightly be silent for minutes)")
	f.headers = map[catalog.KeyKind]*repeatFlag{"": {}}
	f.fs.Var(f.headers[""], "header", "'Name: value' sent with every request (repeatable; ${VAR} reads a variable and is redacted like a key)")
	f.fs.Var(f.headers[""], "H", "short for --header")
	for _, k := range catalog.KeyKinds {
		f.headers[k] = &repeatFlag{}
		f.fs.Var(f.headers[k], string(k)+"-header", fmt.Sprintf("'Name: value' sent with the requests of the %s key (repeatable)", k))
	}
	f.fs.StringVar(&f.caCert, "ca-cert", "", "PEM file of a private CA to trust besides the system's")
	f.fs.BoolVar(&f.insecure, "insecure", false, "do not verify the gateway's certificate (flagged in every report)")
	f.fs.BoolVar(&f.strict, "strict", false, "strict-tier failures count toward the exit code")
	return f
}

// settings is what the engine flags resolve to: flags over variables over
// the config file over defaults.
type settings struct {
	target    conformance.Target
	selection conformance.Selection
	options   conformance.Options
	out       string
	casesDir  string
	strict    bool
	tls       conformance.TLSOptions
	// waivers is the --waivers file of a run (nil: none), and waiversRef
	// names it in the manifest.
	waivers    *waivers.Set
	waiversRef *conformance.ManifestFileRef
	// record is run --record's directory; replay is run --replay's
	// recording, and replayed what was read from it when the session
	// opened (record.go).
	record, replay string
	replayed       *replayed
}

// resolveHeaders sets the target's headers, per key kind: flags, else the
// GWCONFORM_*HEADERS variables, else gwconform.yaml.
func (f *engineFlags) resolveHeaders(t *conformance.Target, file map[string][]string) error {
	kinds := append([]catalog.KeyKind{""}, catalog.KeyKinds...)
	for name := range file {
		if name != allKinds && !slices.Contains(catalog.KeyKinds, catalog.KeyKind(name)) {
			return fmt.Errorf("%s: headers: %q is not %s or a key kind", f.config, name, allKinds)
		}
	}
	for _, kind := range kinds {
		lines := []string(*f.headers[kind])
		if len(lines) == 0 {
			lines = strings.Split(os.Getenv(conformance.HeaderVariables[kind]), "\n")
		}
		if strings.TrimSpace(strings.Join(lines, "")) == "" {
			fileKey := string(kind)
			if kind == "" {
				fileKey = allKinds
			}
			lines = file[fileKey]
		}
		for _, line := range lines {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if err := t.AddHeader(kind, line, os.Getenv); err != nil {
				return err
			}
		}
	}
	return nil
}

// explicit returns the names of the flags given on the command line.
func (f *engineFlags) explicit() map[string]bool {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

func (f *engineFlags) resolve() (*settings, error) {
	set := f.explicit()
	var fc fileConfig
	if b, err := os.ReadFile(f.config); err == nil {
		if err := yaml.UnmarshalWithOptions(b, &fc, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
			return nil, fmt.Errorf("%s: %v", f.config, yaml.FormatError(err, false, true))
		}
	} else if set["config"] {
		return nil, err
	}
	env := conformance.TargetFromEnv()
	pick := func(flagName, flagVal, envVal, file string) string {
		if set[flagName] {
			return flagVal
		}
		if envVal != "" {
			return envVal
		}
		return file
	}
	s := &settings{strict: f.strict}
	s.target = conformance.Target{
		BaseURL:        strings.TrimRight(pick("base-url", f.baseURL, env.BaseURL, fc.BaseURL), "/"),
		PublicImageURL: pick("public-image-url", f.publicImageURL, env.PublicImageURL, fc.PublicImageURL),
		Keys:           map[catalog.KeyKind]string{},
	}
	for k, v := range f.keys {
		if key := pick(string(k)+"-key", *v, env.Keys[k], ""); key != "" {
			s.target.Keys[k] = key
		}
	}
	s.out = f.out
	if !set["out"] && fc.Out != "" {
		s.out = fc.Out
	}
	s.casesDir = f.casesDir
	if !set["cases"] && fc.Cases != "" {
		s.casesDir = fc.Cases
	}
	shard, err := conformance.ParseShard(f.shard)
	if err != nil {
		return nil, err
	}
	if f.maxCalls < 0 || f.maxCost < 0 {
		return nil, fmt.Errorf("--max-calls and --max-cost take a number >= 0 (0: no cap)")
	}
	s.selection = conformance.Selection{Features: f.features, Models: f.models, Cases: f.ids, Tiers: f.tiers, Shard: shard, MaxCalls: f.maxCalls, MaxCost: f.maxCost}
	s.options = conformance.Options{Concurrency: f.concurrency, Timeout: f.timeout, MaxRetries: f.retries, Thumbnails: true,
		ConnectTimeout: f.connectTimeout, HeaderTimeout: f.headerTimeout, IdleTimeout: f.idleTimeout}
	for _, d := range []struct {
		flag string
		v    *time.Duration
		file time.Duration
	}{{"connect-timeout", &s.options.ConnectTimeout, fc.ConnectTimeout}, {"header-timeout", &s.options.HeaderTimeout, fc.HeaderTimeout}, {"idle-timeout", &s.options.IdleTimeout, fc.IdleTimeout}} {
		if !set[d.flag] && d.file > 0 {
			*d.v = d.file
		}
	}
	if err := f.resolveHeaders(&s.target, fc.Headers); err != nil {
		return nil, err
	}
	s.tls = conformance.TLSOptions{CACertFile: f.caCert, Insecure: f.insecure}
	if !set["ca-cert"] && fc.CACert != "" {
		s.tls.CACertFile = fc.CACert
	}
	if !set["concurrency"] && fc.Concurrency > 0 {
		s.options.Concurrency = fc.Concurrency
	}
	if !set["timeout"] && fc.Timeout > 0 {
		s.options.Timeout = fc.Timeout
	}
	if !set["retries"] && fc.Retries != nil {
		s.options.MaxRetries = *fc.Retries
	}
	if s.options.MaxRetries == 0 {
		s.options.MaxRetries = -1 // Options reads 0 as "default"
	}
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
	if err := f.fs.Parse(args); err != nil {
		return nil, exitNotStart
	}
	s, err := f.resolve()
	if err == nil {
		err = s.target.Validate()
	}
	if err == nil && adjust != nil {
		err = adjust(s)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, exitNotStart
	}
	suite, err := conformance.LoadSuite(s.casesDir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitNotStart
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var local *conformancetest.Server
	if s.replay != "" {
		err = useReplay(s, stderr) // no gateway, no key, no preflight
	} else {
		local, err = useLocalGateway(&s.target, stderr)
	}
	if err == nil && local == nil && s.replay == "" {
		s.target.Client, err = conformance.NewClient(s.tls)
		if err == nil && s.tls.Insecure {
			fmt.Fprintf(stderr, "%s: --insecure: the gateway's certificate is not verified; every report says so\n", name)
		}
	}
	if err == nil && local == nil && s.replay == "" {
		err = preflight(ctx, name, &s.target, stderr)
	}
	if err != nil {
		stop()
		if local != nil {
			local.Close()
		}
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, exitNotStart
	}
	return &session{settings: s, suite: suite, ctx: ctx, local: local != nil, close: func() {
		stop()
		if local != nil {
			local.Close()
		}
	}}, exitOK
}

// preflight checks a gateway of the user's before the first planned call:
// an unreachable one or an untrusted certificate stops the run at once (exit
// 2); a rejected key is said here, once, and its cases are skipped.
func preflight(ctx context.Context, name string, t *conformance.Target, stderr io.Writer) error {
	rejected, err := conformance.Preflight(ctx, *t)
	if err != nil {
		return err
	}
	for _, kind := range catalog.KeyKinds {
		if why, ok := rejected[kind]; ok {
			fmt.Fprintf(stderr, "%s: the %s key was rejected (%s): its cases are skipped and the run is incomplete\n", name, kind, why)
		}
	}
	t.Rejected = rejected
	return nil
}
