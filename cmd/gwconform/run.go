package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/waivers"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

func runRun(args []string, stdout, stderr io.Writer) int {
	f := newEngineFlags("run", stdout, "waivers", "rerun-failed", "resume", "record", "replay", "clients", "require-clients")
	rerun, resume := func() bool { return f.set.Bool("rerun-failed") }, func() bool { return f.set.Bool("resume") }
	var recorded conformance.Manifest
	ss, code := f.openSession(args, stderr, func(s *settings) error {
		if rerun() || resume() {
			m, err := adoptRecordedRun(f, s, rerun(), resume())
			if err != nil {
				return err
			}
			recorded = m
		}
		s.record, s.replay = f.set.String("record"), f.set.String("replay")
		if s.record != "" && s.replay != "" {
			return fmt.Errorf("--record and --replay: a replay sends nothing to record")
		}
		if err := readClients(f, s); err != nil {
			return err
		}
		return loadWaivers(s, f.set.String("waivers"))
	})
	if ss == nil { // a refused start (exit 2) leaves an earlier run's files as they are
		return code
	}
	defer ss.close()
	if err := startRecording(ss); err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	switch {
	case rerun():
		return rerunFailed(ss, recorded, stdout, stderr)
	case resume():
		return resumeRun(ss, recorded, stdout, stderr)
	}
	return freshRun(ss, stdout, stderr)
}

// adoptRecordedRun reads the run recorded in --out that --rerun-failed or
// --resume goes on with, and adopts its settings.
func adoptRecordedRun(f *engineFlags, s *settings, rerun, resume bool) (conformance.Manifest, error) {
	if rerun && resume {
		return conformance.Manifest{}, fmt.Errorf("--rerun-failed and --resume: one at a time (resume an interrupted run first)")
	}
	which := map[bool]string{true: "--rerun-failed re-runs", false: "--resume continues"}[rerun]
	m, err := conformance.ReadManifest(s.out)
	if err != nil {
		return m, fmt.Errorf("%s the run recorded in --out %s: %w", which, s.out, err)
	}
	return m, f.adopt(s, m)
}

// freshRun plans the calls, records the plan (manifest.json) before the
// first call, runs them with results.jsonl written as each finishes, and
// ends the run.
func freshRun(ss *session, stdout, stderr io.Writer) int {
	calls, err := plan.Make(ss.suite.Catalog, ss.target, ss.selection)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	if err := os.MkdirAll(ss.out, 0o755); err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	m := ss.manifest(calls)
	if err := m.Write(ss.out); err != nil {
		fmt.Fprintln(stderr, "gwconform run: writing the manifest:", err)
		return exitNotStart
	}
	w, err := results.Create(filepath.Join(ss.out, results.FileName))
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	rs, con, err := runCalls(ss, calls, nil, stdout, w.Write)
	interrupted := ss.ctx.Err() != nil
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	return ss.finish(ending{command: "run", plan: calls, results: rs, con: con, interrupted: interrupted,
		planned: &m.Planned.CostUnits, covered: true}, stdout, stderr)
}

// loadWaivers reads the waivers file, when there is one, into the settings.
func loadWaivers(s *settings, file string) error {
	if file == "" {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("--waivers: %w", err)
	}
	set, err := waivers.Parse(file, b)
	if err != nil {
		return fmt.Errorf("--waivers:\n%w", err)
	}
	sum := sha256.Sum256(b)
	s.waivers = set
	s.waiversRef = &conformance.ManifestFileRef{Path: file, SHA256: hex.EncodeToString(sum[:])}
	return nil
}

// manifest describes the session's run of calls.
func (ss *session) manifest(calls []plan.Call) conformance.Manifest {
	m := conformance.NewManifest(ss.suite.Catalog, ss.target, ss.selection, ss.options, ss.strict, calls)
	m.Command, m.SuiteVersion, m.CasesDir, m.CasesExtra, m.Waivers = "run", version, ss.casesDir, ss.casesExtra, ss.waiversRef
	m.Record, m.Replay = ss.record, ss.replay
	if ss.local {
		m.BaseURL = "" // a later run starts its own reference gateway
	}
	return m
}

// useLocalGateway starts the reference gateway in-process when no base URL
// is set. Keys given by flag or variable become the gateway's keys (so a
// test can run with distinctive ones); the others are its documented defaults.
func useLocalGateway(t *plan.Target, stderr io.Writer) (*conformancetest.Server, error) {
	if t.BaseURL != "" {
		return nil, nil
	}
	srv, err := conformancetest.Start(refgateway.Config{Keys: conformancetest.GatewayKeys(t.Keys)}, fixtures.FS)
	if err != nil {
		return nil, err
	}
	t.BaseURL = srv.BaseURL
	t.Keys = srv.KeyMap()
	if t.PublicImageURL == "" {
		t.PublicImageURL = srv.PublicImageURL
	}
	fmt.Fprintf(stderr, "GWCONFORM_BASE_URL is not set: running against the in-process reference gateway at %s\n", srv.BaseURL)
	return srv, nil
}

// runCalls runs the calls, judges each finished result against the waivers
// and hands it to keep (results.jsonl, written as each finishes, so an
// interrupted run keeps everything that finished) when keep is set. settled
// are the results the run already has (--resume): a negative whose control
// is among them is decided by it. The caller prints the console's summary.
func runCalls(ss *session, calls []plan.Call, settled []results.Result, stdout io.Writer, keep func(results.Result) error) ([]results.Result, *console, error) {
	runner := ss.suite.Runner(ss.target, ss.options)
	runner.Settled = settled
	con := newConsole(stdout, len(calls), ss.strict, ss.verbose, runner)
	now := time.Now() // one date for the whole run: a waiver does not expire halfway
	var rs []results.Result
	var keepErr error
	runner.Run(ss.ctx, calls, func(r results.Result) {
		ss.waivers.Apply(&r, ss.strict, now)
		if keep != nil {
			if err := keep(r); err != nil && keepErr == nil {
				keepErr = err
			}
		}
		rs = append(rs, r)
		con.add(r)
	})
	return rs, con, keepErr
}

// reportExtra is what a report says beyond the results: the plan's cost
// (nil: not known), the models no case covers, and what of the plan has no
// result.
type reportExtra struct {
	planned    *float64
	uncovered  []reportv1.UncoveredModel
	completion results.Completion
	// started and finished, when set, are the run's real span (merge keeps
	// the shards'); otherwise the results' start and now.
	started, finished time.Time
}

// writeReports writes every report of a run. local says the in-process
// reference gateway answered: the reports name it, not its loopback address.
func writeReports(s *settings, local bool, cat *catalog.Catalog, rs []results.Result, extra reportExtra) error {
	baseURL := s.target.BaseURL
	if local {
		baseURL = ""
	}
	meta := reportv1.Meta{
		SuiteVersion: suiteVersion(),
		Commit:       buildCommit(),
		CatalogHash:  cat.Hash(),
		BaseURL:      baseURL,
		Features:     catalog.Features,
		Strict:       s.strict,
		Insecure:     s.tls.Insecure,
		Finished:     time.Now().UTC(),
		MaxCost:      s.selection.MaxCost,
		PlannedCost:  extra.planned,
		Uncovered:    extra.uncovered,
		Recording:    s.record,
		Replay:       s.reportReplay(),
		Shard:        s.selection.Shard.String(),
		Completion:   extra.completion,
		Offers:       s.target.Offers,
		KindBaseURLs: s.target.KindBaseNames(),
		ModelMap:     reportModelMap(s.target.Names),
		Clients:      shownClients(s),
	}
	if !extra.finished.IsZero() {
		meta.Finished = extra.finished
	}
	if started, _ := report.Span(rs); !extra.started.IsZero() {
		meta.Started = extra.started
	} else if !started.IsZero() {
		meta.Started = started
	} else {
		meta.Started = meta.Finished
	}
	return report.WriteAll(s.out, report.Build(meta, rs))
}

// uncoveredModels lists, per configured key the run used, the models the
// gateway lists that no case covers (coverage drift), and says so on the
// console. A key the preflight rejected, or no selected case used, is left
// out; a list that cannot be read is said on stderr and costs the run
// nothing.
func uncoveredModels(ss *session, stdout, stderr io.Writer) []reportv1.UncoveredModel {
	if ss.ctx.Err() != nil || ss.replay != "" { // a replay lists nothing: it sends nothing
		return nil
	}
	t := ss.target
	t.Keys = map[catalog.KeyKind]string{}
	used := plan.UsedKinds(ss.suite.Catalog, ss.target, ss.selection)
	for k, v := range ss.target.Keys {
		if _, rejected := ss.target.Rejected[k]; !rejected && slices.Contains(used, k) {
			t.Keys[k] = v
		}
	}
	found, err := execute.FindNewModels(ss.ctx, ss.suite.Catalog, t, listOptions("gwconform", ss.options.Timeout, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "gwconform: listing the gateway's models for coverage: %v\n", err)
		return nil
	}
	var out []reportv1.UncoveredModel
	for _, m := range found {
		out = append(out, reportv1.UncoveredModel{Key: string(m.Key), Model: m.ID})
		fmt.Fprintf(stdout, "no case covers %s (listed for the %s key): gwconform probe finds what it can do\n", m.ID, m.Key)
	}
	return out
}

// exitCode maps the run's verdict to the exit codes of the contract.
func exitCode(v results.Verdict) int {
	switch v.Outcome {
	case results.OutcomeFail:
		return exitFailed
	case results.OutcomeIncomplete:
		return exitIncomplete
	}
	return exitOK
}
