package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/refgateway"
)

// repeatFlag is a repeatable string flag (--fault, --extra-model,
// --model-name, --vendor-words).
type repeatFlag []string

func (r *repeatFlag) String() string     { return strings.Join(*r, ",") }
func (r *repeatFlag) Set(v string) error { *r = append(*r, v); return nil }

// runServe runs the reference gateway until SIGINT or SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serve is runServe with the stop signal as a context, so tests can stop it.
// It serves the reference gateway, or with the stand-in flags the
// recording relay or the replay stand-in.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code, ok := parseServeFlags(args, stdout, stderr)
	if !ok {
		return code
	}
	if c.listFaults {
		printFaults(stdout)
		return exitOK
	}
	if c.judge.on {
		return c.serveJudging(ctx)
	}
	if c.standInRequested() {
		return c.serveStandIn(ctx)
	}
	return c.serveGateway(ctx)
}

// serveCmd is one gwconform serve: its flags and where it writes.
type serveCmd struct {
	stdout, stderr io.Writer
	addr           string
	keys           refgateway.Keys // the key flags
	latency        string
	rateLimit      string
	faults, extras repeatFlag
	modelNames     repeatFlag // --model-name SPEC=NAME
	vendorWords    repeatFlag // --vendor-words WORD=NAME[,...]
	listFaults     bool
	tlsDir         string
	si             standIn // --upstream, --record, --replay, --replay-timing
	judge          judgeFlags
}

// judgeFlags are serve's judging flags: --judge, --out, --judge-max,
// --strict, --model-map.
type judgeFlags struct {
	on        bool
	out       string
	max       int
	strict    bool
	sample    float64
	modelMap  repeatFlag
	basePaths repeatFlag
}

// parseServeFlags parses serve's flags. ok is false when the command ends
// here, with exit code code.
func parseServeFlags(args []string, stdout, stderr io.Writer) (c *serveCmd, code int, ok bool) {
	c = &serveCmd{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("gwconform serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := refgateway.DefaultKeys()
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.StringVar(&c.keys.Text, "text-key", def.Text, "bearer key of the text kind (chat, responses)")
	fs.StringVar(&c.keys.Messages, "messages-key", def.Messages, "bearer key of the messages kind")
	fs.StringVar(&c.keys.Image, "image-key", def.Image, "bearer key of the image kind")
	fs.StringVar(&c.keys.Alt, "alt-key", def.Alt, "bearer key of the alternative text model kind")
	fs.StringVar(&c.latency, "latency", "", "delays: ENDPOINT=DURATION[,...], ENDPOINT one of models, chat, messages, images.generations, images.edits, responses, event; DURATION like 200ms or 1s-3s")
	fs.StringVar(&c.rateLimit, "rate-limit", "", "limit each key's requests: `SPEC` is RATE[,burst=N][,CLASS=RATE...], RATE like 2/s or 10/m (the first is every class's), CLASS one of models, chat, messages, images, responses, burst the bucket size (default 1), e.g. 2/s,burst=2,images=10/m; over it 429 with Retry-After")
	fs.Var(&c.faults, "fault", "switch a fault on for every request (repeatable, or comma-separated; see --list-faults)")
	fs.Var(&c.extras, "extra-model", "list and serve an extra model, KIND:ID with KIND text, messages, image or alt (repeatable)")
	fs.Var(&c.modelNames, "model-name", "serve a model under another name, `SPEC=NAME`: the model of spec id (or --extra-model id) SPEC is listed and answered as NAME only, and SPEC is then unknown, e.g. gen-5.5=company-chat (repeatable; wins over --vendor-words)")
	fs.Var(&c.vendorWords, "vendor-words", "serve every model under a vendor's name, `WORD=NAME[,...]`: an id starting with the neutral WORD (gen, msg or alt) is served with NAME in its place, e.g. gen=gpt,msg=claude,alt=gemini serves gen-5.5 as gpt-5.5, gen=openai/gpt as openai/gpt-5.5; the spec ids are then unknown (repeatable)")
	fs.BoolVar(&c.listFaults, "list-faults", false, "print the fault switches and the rule each breaks, then exit")
	fs.StringVar(&c.tlsDir, "tls", "", "serve HTTPS with a new self-signed certificate for 127.0.0.1 and localhost, written to DIR/cert.pem (give it to run --ca-cert)")
	fs.StringVar(&c.si.upstream, "upstream", "", "relay every request to the gateway at `URL` instead of answering as the reference gateway, recording each exchange (with --record)")
	fs.StringVar(&c.si.record, "record", "", "with --upstream: the recording `DIR` the relayed exchanges are written to (the key flags name the kind of each client's key; keys are never recorded)")
	fs.StringVar(&c.si.replay, "replay", "", "answer from the recording `DIR` (made by run --record or serve --upstream --record): a request matching a recorded one by key kind, method, path, model and body gets its recorded answer; any other gets 501 naming the nearest recorded exchange")
	fs.BoolVar(&c.si.timing, "replay-timing", false, "with --replay: answer with the recorded timing (time to headers, each stream event at its recorded offset)")
	fs.BoolVar(&c.judge.on, "judge", false, "judge each exchange as it ends: with --upstream, relay and judge both sides (the client's request and the gateway's answer); alone, answer as the reference gateway and judge each client's requests. Results go to --out as exchanges end; the reports are written on SIGINT, SIGTERM or --judge-max")
	fs.StringVar(&c.judge.out, "out", judgedDir, "with --judge: the `DIR` of results.jsonl, the reports and (without --record) the recording (not a run's)")
	fs.IntVar(&c.judge.max, "judge-max", 0, "with --judge: stop after `N` exchanges judged and write the reports (0: until SIGINT or SIGTERM)")
	fs.BoolVar(&c.judge.strict, "strict", false, "with --judge: strict-tier findings fail the judgement too")
	fs.Var(&c.judge.modelMap, "model-map", "with --judge: "+modelMapUsage)
	fs.Var(&c.judge.basePaths, "base-path", "with --judge: "+basePathUsage)
	fs.Float64Var(&c.judge.sample, "judge-sample", 0, "with --judge: judge this share of the exchanges, `P` in (0, 1] (0: all), said in the headline; what the sample leaves out leaves the judgement complete")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gwconform serve [flags]")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return nil, code, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gwconform serve: unexpected argument %q\n", fs.Arg(0))
		return nil, exitNotStart, false
	}
	return c, 0, true
}

// printFaults prints --list-faults: each fault switch, what it breaks and
// the rule.
func printFaults(stdout io.Writer) {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, f := range refgateway.Faults() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Spec, f.Rule)
	}
	_ = tw.Flush()
}

// standInRequested reports whether any stand-in flag is given: serve is
// then the relay or the replay stand-in, not the reference gateway.
func (c *serveCmd) standInRequested() bool {
	return c.si.upstream != "" || c.si.record != "" || c.si.replay != "" || c.si.timing
}

// serveGateway serves the reference gateway, shaped by --latency,
// --rate-limit, --fault, --extra-model, --model-name and --vendor-words.
func (c *serveCmd) serveGateway(ctx context.Context) int {
	cfg, err := c.gatewayConfig()
	if err != nil {
		return c.notStarted(err)
	}
	gw, err := newGateway(cfg)
	if err != nil {
		return c.notStarted(err)
	}
	banner := func(w io.Writer) {
		fmt.Fprintf(w, "  text key:     %s\n  messages key: %s\n  image key:    %s\n  alt key:      %s\n",
			cfg.Keys.Text, cfg.Keys.Messages, cfg.Keys.Image, cfg.Keys.Alt)
		if len(cfg.Faults) > 0 {
			fmt.Fprintf(w, "  faults:       %s\n", strings.Join(cfg.Faults, ","))
		}
		if cfg.RateLimit.Enabled() {
			fmt.Fprintf(w, "  rate limit:   %s\n", cfg.RateLimit)
		}
		if len(c.vendorWords) > 0 {
			fmt.Fprintf(w, "  vendor words: %s\n", strings.Join(c.vendorWords, ","))
		}
		if len(c.modelNames) > 0 {
			fmt.Fprintf(w, "  model names:  %s\n", strings.Join(c.modelNames, ","))
		}
	}
	return c.listenAndServe(ctx, gw, banner)
}

// newGateway builds the reference gateway, and names the fault a
// misspelt --fault meant.
func newGateway(cfg refgateway.Config) (*refgateway.Gateway, error) {
	gw, err := refgateway.New(cfg)
	var unknown refgateway.UnknownFaultError
	if errors.As(err, &unknown) {
		var names []string
		for _, f := range refgateway.Faults() {
			names = append(names, f.Name)
		}
		hint := catalog.Closest(unknown.Name, names)
		return nil, fmt.Errorf("--fault: unknown fault %q%s (--list-faults lists them)", unknown.Name, hint)
	}
	return gw, err
}

// gatewayConfig is the reference gateway's configuration from the flags;
// an error names the flag at fault.
func (c *serveCmd) gatewayConfig() (refgateway.Config, error) {
	cfg := refgateway.Config{Keys: c.keys, Faults: c.faults}
	lat, err := refgateway.ParseLatency(c.latency)
	if err != nil {
		return cfg, fmt.Errorf("--latency: %w", err)
	}
	cfg.Latency = lat
	rl, err := refgateway.ParseRateLimit(c.rateLimit)
	if err != nil {
		return cfg, fmt.Errorf("--rate-limit: %w", err)
	}
	cfg.RateLimit = rl
	for _, e := range c.extras {
		em, err := refgateway.ParseExtraModel(e)
		if err != nil {
			return cfg, fmt.Errorf("--extra-model: %w", err)
		}
		cfg.ExtraModels = append(cfg.ExtraModels, em)
	}
	if cfg.ModelNames, err = refgateway.ParseModelNames(c.modelNames, cfg.ExtraModels); err != nil {
		return cfg, fmt.Errorf("--model-name: %w", err)
	}
	if cfg.VendorWords, err = refgateway.ParseVendorWords(c.vendorWords); err != nil {
		return cfg, fmt.Errorf("--vendor-words: %w", err)
	}
	return cfg, nil
}

// serveStandIn serves the recording relay or the replay stand-in. They
// answer what the upstream gateway or the recording says, so the flags
// shaping the reference gateway are refused.
func (c *serveCmd) serveStandIn(ctx context.Context) int {
	if c.latency != "" || c.rateLimit != "" || len(c.faults) > 0 || len(c.extras) > 0 || len(c.modelNames) > 0 || len(c.vendorWords) > 0 {
		fmt.Fprintln(c.stderr, "gwconform serve: --latency, --rate-limit, --fault and --extra-model shape the reference gateway, as --model-name and --vendor-words do; a relay or a replay answers what the recording says")
		return exitNotStart
	}
	c.si.keys = c.keyKinds()
	handler, banner, err := c.si.handler()
	if err != nil {
		return c.notStarted(err)
	}
	defer c.si.wait()
	return c.listenAndServe(ctx, handler, banner)
}

// keyKinds maps each key kind to its key flag's value: how a relay names
// the kind of each client's key.
func (c *serveCmd) keyKinds() map[string]string {
	return map[string]string{refgateway.KindText: c.keys.Text, refgateway.KindMessages: c.keys.Messages, refgateway.KindImage: c.keys.Image, refgateway.KindAlt: c.keys.Alt}
}

// listenAndServe serves handler on --addr (with --tls, HTTPS) until ctx is
// done, after printing where it listens and the banner.
func (c *serveCmd) listenAndServe(ctx context.Context, handler http.Handler, banner func(w io.Writer)) int {
	ln, scheme, err := listen(c.addr, c.tlsDir)
	if err != nil {
		return c.notStarted(err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// No write timeout: streams and large image requests may take up to
		// the spec's 600 s (section 8).
	}
	fmt.Fprintf(c.stdout, "gwconform %s listening on %s://%s\n", c.si.role(), scheme, ln.Addr())
	if c.tlsDir != "" {
		fmt.Fprintf(c.stdout, "  certificate:  %s (self-signed; run --ca-cert %[1]s)\n", filepath.Join(c.tlsDir, "cert.pem"))
	}
	banner(c.stdout)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(c.stderr, "gwconform serve:", err)
		return exitFailed
	case <-ctx.Done():
	}
	fmt.Fprintln(c.stdout, "shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	return exitOK
}

// listen listens on addr. With tlsDir set, it serves TLS with a new
// self-signed certificate written to tlsDir. scheme is http or https.
func listen(addr, tlsDir string) (ln net.Listener, scheme string, err error) {
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	if tlsDir == "" {
		return ln, "http", nil
	}
	cert, err := selfSigned(tlsDir)
	if err != nil {
		ln.Close()
		return nil, "", fmt.Errorf("--tls: %w", err)
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), "https", nil
}

// notStarted reports err, which kept serve from starting, and gives the
// exit code.
func (c *serveCmd) notStarted(err error) int {
	fmt.Fprintln(c.stderr, "gwconform serve:", err)
	return exitNotStart
}
