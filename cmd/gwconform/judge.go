package main

import (
	"context"
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
	"time"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/observe"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// runJudge is gwconform judge RECORDING: a relay's recording judged after
// the fact, both sides, with no network.
func runJudge(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return judgeRecording(ctx, args, stdout, stderr)
}

func judgeRecording(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform judge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", judgedDir, "the `DIR` results.jsonl and the reports are written to (not a run's)")
	strict := fs.Bool("strict", false, "strict-tier findings fail the judgement too")
	var modelMap, basePaths repeatFlag
	fs.Var(&modelMap, "model-map", modelMapUsage)
	fs.Var(&basePaths, "base-path", basePathUsage)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gwconform judge [flags] RECORDING\n\nJudges every exchange a relay recorded (serve --upstream URL --record RECORDING): the client's requests against the spec's request rules, the gateway's answers with the catalog's checks. Nothing is sent.")
		fs.PrintDefaults()
	}
	recordings, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(recordings) != 1 {
		fmt.Fprintln(stderr, "gwconform judge: want one RECORDING, the directory of serve --upstream URL --record")
		return exitNotStart
	}
	recording := recordings[0]
	store, meta, err := record.Open(recording)
	if err != nil {
		fmt.Fprintf(stderr, "gwconform judge: %v\n(judge reads a relay's recording: gwconform serve --upstream URL --record DIR)\n", err)
		return exitNotStart
	}
	if meta.Source != record.SourceRelay {
		fmt.Fprintf(stderr, "gwconform judge: %s is a recording of gwconform run, not of a relay: replay it with run --replay %[1]s\n", recording)
		return exitNotStart
	}
	// The rounds are read one at a time, in the order they were sent:
	// a recording of a day's traffic is never held whole.
	sent, err := store.Sent()
	if err != nil {
		fmt.Fprintln(stderr, "gwconform judge:", err)
		return exitNotStart
	}
	jg, err := newJudging(judgeSettings{out: *out, strict: *strict, modelMap: modelMap, basePaths: basePaths}, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform judge:", err)
		return exitNotStart
	}
	fmt.Fprintf(stdout, "judging %d exchanges recorded by the relay to %s (%s); nothing is sent\n", sent.Len(), meta.BaseURL, recording)
	interrupted := false
	for k, err := range sent.All() {
		if err != nil { // the recording changed while it was judged
			fmt.Fprintln(stderr, "gwconform judge:", err)
			interrupted = true
			break
		}
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		jg.pipeline.Put(k.Round, filepath.Join(store.Dir(), k.File), store)
	}
	return jg.finish(meta.BaseURL, recording, interrupted, stderr)
}

// judging is one judgement of observed traffic: the judging pipeline
// (observe.Pipeline: queue, workers, session, results.jsonl), and what the
// console says of it; the reports at its end.
type judging struct {
	pipeline *observe.Pipeline
	w        *results.Writer
	cat      *catalog.Catalog
	js       judgeSettings
	stdout   io.Writer
	said     map[string]bool // the causes the console named
	started  time.Time
}

// judgedDir is where a judgement writes by default: never a run's out.
const judgedDir = "judged"

// parseInterspersed parses flags that may come before, between and after
// the positional arguments (gwconform judge REC --out DIR), which it
// returns in order.
func parseInterspersed(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (positional []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
			return nil, code, false
		}
		if fs.NArg() == 0 {
			return positional, 0, true
		}
		positional, args = append(positional, fs.Arg(0)), fs.Args()[1:]
	}
}

// modelMapUsage is --model-map's, on judge and serve --judge alike.
const modelMapUsage = "the gateway's id of a spec model its traffic names otherwise, `SPEC=GATEWAY`, or WORD=NAME (gen=company) for every catalog id with that neutral word (repeatable, or comma-separated, a comma splitting only before a piece with =), as run's --model-map: its requests are weighed against the spec model's verified rows (ids that only put a vendor word of the vendor table in place of gen-, msg-, alt- need none)"

// basePathUsage is --base-path's, on judge and serve --judge alike.
const basePathUsage = "the path of a base URL of a routed gateway, `PREFIX` such as /anthropic (repeatable): a request under it is judged as that base URL plus the path; an undeclared prefix breaks the spec's exact paths"

// judgeSettings are what a judgement is asked to do: where its outputs
// go, whether the client side alone is judged (serve --judge), after how
// many exchanges it ends (0: never), whether strict findings count, the
// --model-map entries and the --base-path prefixes.
type judgeSettings struct {
	out        string
	clientOnly bool // serve --judge without --upstream: the stand-in answers
	max        int
	strict     bool
	sample     float64
	modelMap   []string
	basePaths  []string
}

func newJudging(js judgeSettings, stdout io.Writer) (*judging, error) {
	suite, err := conformance.LoadSuite("")
	if err != nil {
		return nil, err
	}
	modelMap, err := plan.ParseModelMap(js.modelMap)
	if err != nil {
		return nil, err
	}
	if err := plan.CheckModelMap(suite.Catalog, modelMap); err != nil {
		return nil, err
	}
	for _, p := range js.basePaths {
		if err := observe.CheckBasePath(p); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(js.out, conformance.ManifestFile)); err == nil {
		return nil, fmt.Errorf("%s holds a run (its %s): a judgement would overwrite its results; judge into another folder (--out %s, the default) or move the run", js.out, conformance.ManifestFile, judgedDir)
	}
	if err := os.MkdirAll(js.out, 0o755); err != nil {
		return nil, err
	}
	w, err := results.Create(filepath.Join(js.out, results.FileName))
	if err != nil {
		return nil, err
	}
	// No thumbnails: a day of traffic would make a report of megabytes of
	// them, and drawing them is most of the time an image takes to judge.
	limits := check.Limits{MaxBodyBytes: 256 << 20}
	clients, err := catalog.EmbeddedClients()
	if err != nil {
		return nil, err
	}
	// The word form (gen=gpt) names every catalog id with the word: the
	// judge compares ids, so it gets each spelled out.
	judge := observe.New(suite.Catalog, suite.Schemas, limits, observe.Options{ClientOnly: js.clientOnly, Strict: js.strict,
		ModelMap: plan.ExpandModelMap(suite.Catalog, modelMap), BasePaths: js.basePaths, Clients: clients})
	jg := &judging{w: w, cat: suite.Catalog, js: js, stdout: stdout, started: time.Now().UTC(), said: map[string]bool{}}
	jg.pipeline = observe.NewPipeline(judge, observe.PipelineOptions{Sample: js.sample, Max: js.max}, w, jg.say)
	return jg, nil
}

// say prints a line for the first result of each cause found (a day of
// traffic repeats its few causes millions of times; the end groups them
// with their counts). A finding that does not decide says so.
func (j *judging) say(res results.Result) {
	if !res.Failed() {
		return
	}
	for _, reason := range res.Reasons {
		if j.said[reason.Cause()] {
			continue
		}
		j.said[reason.Cause()] = true
		tag := strings.ToUpper(string(res.Status))
		if !res.Decides(j.js.strict) {
			tag += " (reported only: " + reportedOnly(res) + ")"
		}
		fmt.Fprintf(j.stdout, "%s %s %s %s (%s): %s\n", tag, res.Case, res.Request.Method, res.Request.Path, res.Model, reason)
	}
}

// reportedOnly says why a finding does not decide the verdict.
func reportedOnly(res results.Result) string {
	if res.Aside {
		return "the client side of a relay"
	}
	return string(res.Tier) + " tier"
}

// recap prints what each client's requests came to (the report's
// summary of them), and the gateway's findings grouped by cause in the
// reports' order: one line a rule, with its count and the example the
// report shows (gwconform show --out DIR CASE).
func (j *judging) recap(rep *reportv1.Report, rs []results.Result) {
	for _, c := range rep.Clients {
		fmt.Fprintf(j.stdout, "%s: %d requests, %d conform\n", c.Client, c.Requests, c.Conforming)
		for _, b := range c.Breaches {
			fmt.Fprintf(j.stdout, "  breaks %-28s %4d× e.g. %s: %s\n", b.Row, b.Count, b.Example, results.Truncate(b.Said, 160))
		}
		for _, n := range c.Notes {
			fmt.Fprintf(j.stdout, "  note   %-28s %4d× e.g. %s: %s\n", n.Row, n.Count, n.Example, results.Truncate(n.Said, 160))
		}
	}
	for _, g := range causeGroups(rs, j.js.strict) {
		if g.Example.Side != results.SideGateway {
			continue
		}
		kind := "deciding"
		if !g.Deciding {
			kind = "reported only"
		}
		fmt.Fprintf(j.stdout, "gateway: %d× %s (%s; e.g. %s)\n", g.Results, results.Truncate(g.Reason.String(), 160), kind, g.Example.Case)
	}
}

// close judges what is queued, settles what waits and closes
// results.jsonl.
func (j *judging) close() (observe.Counts, error) {
	counts, err := j.pipeline.Close()
	return counts, errors.Join(err, j.w.Close())
}

// finish settles the judgement, writes the reports from results.jsonl and
// returns the exit code, as a run's.
func (j *judging) finish(baseURL, recording string, interrupted bool, stderr io.Writer) int {
	counts, err := j.close()
	if err != nil {
		fmt.Fprintln(stderr, "gwconform judge: results.jsonl:", err)
	}
	rs, err := results.ReadFile(filepath.Join(j.js.out, results.FileName))
	if err != nil {
		fmt.Fprintln(stderr, "gwconform judge:", err)
		return exitFailed
	}
	comp := results.Completion{Interrupted: interrupted, Unjudged: counts.QueueFull, Sample: counts.Sample}
	v := results.Judge(rs, j.js.strict, comp)
	covered := observe.Covered(rs)
	meta := reportv1.Meta{SuiteVersion: suiteVersion(), Commit: buildCommit(), CatalogHash: j.cat.Hash(), BaseURL: baseURL,
		Features: catalog.Features, Strict: j.js.strict, Started: j.started, Finished: time.Now().UTC(), Recording: recording,
		Traffic: &reportv1.Traffic{Exchanges: counts.Judged, Covered: covered, Bases: j.js.basePaths, StandIn: j.js.clientOnly}, Completion: comp}
	if started, _ := report.Span(rs); !started.IsZero() {
		meta.Started = started
	}
	rep := report.Build(meta, rs)
	if err := report.WriteAll(j.js.out, rep); err != nil {
		fmt.Fprintln(stderr, "gwconform judge: writing reports:", err)
		return exitFailed
	}
	fmt.Fprintf(j.stdout, "\njudged %s: %s\n", observe.Judged(counts), observe.Summary(rs))
	j.recap(rep, rs)
	for _, n := range rep.Notes {
		fmt.Fprintln(j.stdout, "  note:", n)
	}
	fmt.Fprintf(j.stdout, "%s: %s\noutputs in %s\n", strings.ToUpper(string(v.Outcome)), v.Headline, filepath.Clean(j.js.out))
	return exitCode(v)
}

// serveJudging is serve --judge: a relay whose every exchange is judged
// beside it as it ends, in front of --upstream or of the reference
// gateway (which is not on trial: the client side alone is judged).
func (c *serveCmd) serveJudging(ctx context.Context) int {
	if err := c.judgeRefusal(); err != nil {
		return c.notStarted(err)
	}
	clientOnly := c.si.upstream == ""
	if clientOnly {
		stop, err := c.startGateway()
		if err != nil {
			return c.notStarted(err)
		}
		defer stop()
	}
	if c.si.record == "" {
		c.si.record = filepath.Join(c.judge.out, "recording")
	}
	jg, err := newJudging(judgeSettings{out: c.judge.out, clientOnly: clientOnly, max: c.judge.max, strict: c.judge.strict, sample: c.judge.sample,
		modelMap: c.judge.modelMap, basePaths: c.judge.basePaths}, c.stdout)
	if err != nil {
		return c.notStarted(err)
	}
	c.si.relayed = jg.pipeline.Push
	c.si.keys = c.keyKinds()
	handler, relayBanner, err := c.si.handler()
	if err != nil {
		return c.notStarted(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-jg.pipeline.Full():
			cancel()
		case <-sctx.Done():
		}
	}()
	code := c.listenAndServe(sctx, handler, c.judgeBanner(clientOnly, relayBanner))
	c.si.wait()
	if code != exitOK {
		jg.close()
		return code
	}
	judged := c.si.upstream
	if clientOnly {
		judged = "" // the in-process reference gateway, gone with the session
	}
	return jg.finish(judged, c.si.record, false, c.stderr)
}

// judgeRefusal says why serve --judge cannot start with these flags.
func (c *serveCmd) judgeRefusal() error {
	shaped := c.latency != "" || c.rateLimit != "" || len(c.faults) > 0 || len(c.extras) > 0 || len(c.modelNames) > 0 || len(c.vendorWords) > 0
	switch {
	case c.si.replay != "" || c.si.timing:
		return errors.New("--judge judges live traffic; a recording is judged with gwconform judge RECORDING")
	case c.judge.max < 0:
		return errors.New("--judge-max wants 0 (no limit) or more exchanges")
	case c.judge.sample < 0 || c.judge.sample > 1:
		return errors.New("--judge-sample wants a share in (0, 1], or 0 for all")
	case c.si.upstream != "" && shaped:
		return errors.New("--latency, --rate-limit, --fault, --extra-model, --model-name and --vendor-words shape the reference gateway; a relay answers what --upstream does")
	}
	return nil
}

// judgeBanner is what serve --judge says when it listens.
func (c *serveCmd) judgeBanner(clientOnly bool, relayBanner func(io.Writer)) func(io.Writer) {
	return func(w io.Writer) {
		if clientOnly {
			fmt.Fprintf(w, "  answering as the reference gateway; judging each client's requests\n  keys:         %s (text), %s (messages), %s (image), %s (alt)\n", c.keys.Text, c.keys.Messages, c.keys.Image, c.keys.Alt)
			fmt.Fprintln(w, "  models:       the spec's ids (gen-5.5, msg-sonnet-5, gen-image-2, alt-flash, ...), also in a vendor's words (gpt-5.5, openai/gpt-5.5, claude-sonnet-5, gemini-flash); another id is 404")
			fmt.Fprintf(w, "  recording to: %s\n", c.si.record)
		} else {
			relayBanner(w)
		}
		fmt.Fprintf(w, "  results:      %s as exchanges end; the reports on SIGINT or SIGTERM%s\n", filepath.Join(c.judge.out, results.FileName), maxSaid(c.judge.max))
	}
}

func maxSaid(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", or after %d exchanges (--judge-max)", n)
}

// startGateway serves the reference gateway, shaped by serve's flags, on
// a loopback port of its own, and points the relay at it.
func (c *serveCmd) startGateway() (stop func(), err error) {
	cfg, err := c.gatewayConfig()
	if err != nil {
		return nil, err
	}
	// The stand-in answers client code with the names it sends its real
	// gateway (gpt-5.5 for gen-5.5); a plain serve keeps the spec's ids.
	cfg.AnyVendorName = len(cfg.ModelNames) == 0 && len(cfg.VendorWords) == 0
	gw, err := newGateway(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: gw, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	c.si.upstream = "http://" + ln.Addr().String()
	return func() { _ = srv.Close() }, nil
}
