package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gwconform/gwconform/catalog"
	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/fixtures"
	"github.com/gwconform/gwconform/refgateway"
	"github.com/gwconform/gwconform/refgateway/loopback"
	"github.com/gwconform/gwconform/report"
	"github.com/gwconform/gwconform/results"
	"github.com/gwconform/gwconform/schemas"
)

func runRun(args []string, stdout, stderr io.Writer) int {
	f := newEngineFlags("run", stderr)
	if err := f.fs.Parse(args); err != nil {
		return exitNotStart
	}
	s, err := f.resolve()
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	cat, set, err := loadCatalog(s.casesDir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitNotStart
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	local, err := useLocalGateway(&s.target, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	if local != nil {
		defer local.Close()
	}
	calls, err := conformance.Plan(cat, s.target, s.selection)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	rs, err := execute(ctx, cat, set, s, calls, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run:", err)
		return exitNotStart
	}
	interrupted := ctx.Err() != nil
	if err := writeReports(s, cat, rs); err != nil {
		fmt.Fprintln(stderr, "gwconform run: writing reports:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "outputs in %s\n", s.out)
	if interrupted {
		fmt.Fprintf(stderr, "gwconform run: interrupted after %d of %d results; those are in %s\n", len(rs), len(calls), filepath.Join(s.out, "results.jsonl"))
		return exitFailed
	}
	return exitCode(rs, s.strict)
}

// useLocalGateway starts the reference gateway in-process when no base URL
// is set. Keys given by flag or variable become the gateway's keys (so a
// test can run with distinctive ones); the others are its documented defaults.
func useLocalGateway(t *conformance.Target, stderr io.Writer) (*loopback.Server, error) {
	if t.BaseURL != "" {
		return nil, nil
	}
	keys := refgateway.DefaultKeys()
	for kind, key := range map[catalog.KeyKind]*string{
		catalog.KeyText: &keys.Text, catalog.KeyMessages: &keys.Messages,
		catalog.KeyImage: &keys.Image, catalog.KeyAlt: &keys.Alt,
	} {
		if t.Keys[kind] != "" {
			*key = t.Keys[kind]
		}
	}
	srv, err := loopback.Start(refgateway.Config{Keys: keys}, fixtures.FS)
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
func execute(ctx context.Context, cat *catalog.Catalog, set *schemas.Set, s *settings, calls []conformance.Call, stdout io.Writer) ([]results.Result, error) {
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return nil, err
	}
	w, err := results.Create(filepath.Join(s.out, "results.jsonl"))
	if err != nil {
		return nil, err
	}
	runner := &conformance.Runner{Catalog: cat, Schemas: set, Target: s.target, Options: s.options}
	con := newConsole(stdout, len(calls))
	var rs []results.Result
	var writeErr error
	runner.Run(ctx, calls, func(r results.Result) {
		if err := w.Write(r); err != nil && writeErr == nil {
			writeErr = err
		}
		rs = append(rs, r)
		con.add(r)
	})
	if err := w.Close(); err != nil && writeErr == nil {
		writeErr = err
	}
	con.summary(rs)
	return rs, writeErr
}

func writeReports(s *settings, cat *catalog.Catalog, rs []results.Result) error {
	meta := report.Meta{
		SuiteVersion: version,
		Commit:       buildCommit(),
		CatalogHash:  cat.Hash(),
		BaseURL:      s.target.BaseURL,
		Features:     catalog.Features,
		Strict:       s.strict,
		Finished:     time.Now().UTC(),
	}
	meta.Started = meta.Finished
	for _, r := range rs {
		if !r.Started.IsZero() && r.Started.Before(meta.Started) {
			meta.Started = r.Started
		}
	}
	return report.WriteAll(s.out, report.Build(meta, rs))
}

// exitCode: 0 when every counted case passed, 1 otherwise.
func exitCode(rs []results.Result, strict bool) int {
	for _, r := range rs {
		if r.Counts(strict) && r.Failed() {
			return exitFailed
		}
	}
	return exitOK
}
