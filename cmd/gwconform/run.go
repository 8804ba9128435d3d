package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/report"
)

func runRun(args []string, stdout, stderr io.Writer) int {
	ss, code := newEngineFlags("run", stderr).openSession(args, stderr, nil)
	if ss == nil {
		return code
	}
	defer ss.close()
	calls, err := conformance.Plan(ss.suite.Catalog, ss.target, ss.selection)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	rs, err := execute(ss, calls, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	if err := writeReports(ss.settings, ss.suite.Catalog, rs); err != nil {
		fmt.Fprintln(stderr, "gwconform run: writing reports:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "outputs in %s\n", ss.out)
	if ss.ctx.Err() != nil {
		fmt.Fprintf(stderr, "gwconform run: interrupted after %d of %d results; those are in %s\n", len(rs), len(calls), filepath.Join(ss.out, results.FileName))
		return exitFailed
	}
	return exitCode(results.Judge(rs, ss.strict))
}

// useLocalGateway starts the reference gateway in-process when no base URL
// is set. Keys given by flag or variable become the gateway's keys (so a
// test can run with distinctive ones); the others are its documented defaults.
func useLocalGateway(t *conformance.Target, stderr io.Writer) (*conformancetest.Server, error) {
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

// execute runs the calls, appending each result to results.jsonl as it
// finishes, so an interrupted run keeps everything that finished.
func execute(ss *session, calls []conformance.Call, stdout io.Writer) ([]results.Result, error) {
	if err := os.MkdirAll(ss.out, 0o755); err != nil {
		return nil, err
	}
	w, err := results.Create(filepath.Join(ss.out, results.FileName))
	if err != nil {
		return nil, err
	}
	runner := &conformance.Runner{Suite: ss.suite, Target: ss.target, Options: ss.options}
	con := newConsole(stdout, len(calls))
	var rs []results.Result
	var writeErr error
	runner.Run(ss.ctx, calls, func(r results.Result) {
		if err := w.Write(r); err != nil && writeErr == nil {
			writeErr = err
		}
		rs = append(rs, r)
		con.add(r)
	})
	if err := w.Close(); err != nil && writeErr == nil {
		writeErr = err
	}
	con.summary(rs, results.Judge(rs, ss.strict))
	return rs, writeErr
}

func writeReports(s *settings, cat *catalog.Catalog, rs []results.Result) error {
	meta := report.Meta{
		SuiteVersion: suiteVersion(),
		Commit:       buildCommit(),
		CatalogHash:  cat.Hash(),
		BaseURL:      s.target.BaseURL,
		Features:     catalog.Features,
		Strict:       s.strict,
		Insecure:     s.tls.Insecure,
		Finished:     time.Now().UTC(),
	}
	if started, _ := report.Span(rs); !started.IsZero() {
		meta.Started = started
	} else {
		meta.Started = meta.Finished
	}
	return report.WriteAll(s.out, report.Build(meta, rs))
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
