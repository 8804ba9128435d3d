package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/results"
)

// adoptManifest gives the settings of the recorded run to every setting
// the command line does not: the selection, the budgets, strict, the
// execution options, the cases directory and the gateway (unless a flag or
// GWCONFORM_BASE_URL names one). What the command line does give is kept,
// and rerunFailed refuses it when it differs from the recorded run.
func (f *engineFlags) adoptManifest(s *settings, m conformance.Manifest) error {
	set := f.explicit()
	sel, err := m.SelectionOf()
	if err != nil {
		return fmt.Errorf("%s: %w", conformance.ManifestFile, err)
	}
	timeout, err := time.ParseDuration(m.Options.Timeout)
	if err != nil {
		return fmt.Errorf("%s: timeout: %w", conformance.ManifestFile, err)
	}
	if s.target.BaseURL == "" {
		s.target.BaseURL = m.BaseURL
	}
	adopt := func(flag string, apply func()) {
		if !set[flag] {
			apply()
		}
	}
	adopt("cases", func() { s.casesDir = m.CasesDir })
	adopt("strict", func() { s.strict = m.Strict })
	adopt("feature", func() { s.selection.Features = sel.Features })
	adopt("model", func() { s.selection.Models = sel.Models })
	adopt("case", func() { s.selection.Cases = sel.Cases })
	adopt("tier", func() { s.selection.Tiers = sel.Tiers })
	adopt("shard", func() { s.selection.Shard = sel.Shard })
	adopt("max-calls", func() { s.selection.MaxCalls = sel.MaxCalls })
	adopt("max-cost", func() { s.selection.MaxCost = sel.MaxCost })
	adopt("concurrency", func() { s.options.Concurrency = m.Options.Concurrency })
	adopt("timeout", func() { s.options.Timeout = timeout })
	adopt("record", func() { s.record = m.Record })
	adopt("replay", func() { s.replay = m.Replay })
	adopt("retries", func() {
		s.options.MaxRetries = m.Options.Retries
		if s.options.MaxRetries == 0 {
			s.options.MaxRetries = -1 // Options reads 0 as "default"
		}
	})
	return nil
}

// rerunFailed re-runs the results of the run in --out that would page
// someone (fail, error, throttled; verified and negative, strict under
// --strict), with the recorded run's selection and settings, within what
// is left of its budget. Each re-run result replaces its line in
// results.jsonl, keeping its first run's status and reasons (a pass is
// flaky), and every report is written again.
func rerunFailed(ss *session, recorded conformance.Manifest, stdout, stderr io.Writer) int {
	if !sameRun(ss, recorded, "--rerun-failed", "re-running", stderr) {
		return exitNotStart
	}
	path := filepath.Join(ss.out, results.FileName)
	recordedRs, err := results.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run --rerun-failed:", err)
		return exitNotStart
	}
	// The plan is re-made without its budget, which PlanRerun applies to the
	// re-runs with what the recorded results left of it.
	planSel := ss.selection
	planSel.MaxCalls, planSel.MaxCost = 0, 0
	plan, err := conformance.Plan(ss.suite.Catalog, ss.target, planSel)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform run --rerun-failed:", err)
		return exitNotStart
	}
	run, held := conformance.PlanRerun(plan, recordedRs, ss.strict, ss.selection)
	fmt.Fprintf(stdout, "re-running %d failed, errored or throttled verified/negative results of %s\n", len(run), path)
	for _, c := range held {
		fmt.Fprintf(stderr, "not re-run: %s: %s\n", c.ID(), c.Skip.Message)
	}

	again, con, _ := execute(ss, run, stdout, nil)
	if ss.ctx.Err() != nil {
		con.summary(again, results.Judge(again, ss.strict))
		fmt.Fprintf(stderr, "gwconform run --rerun-failed: interrupted; %s is left as it was\n", path)
		return exitFailed
	}
	type key struct{ caseID, model string }
	now := map[key]results.Result{}
	for _, r := range again {
		now[key{r.Case, r.Model}] = r
	}
	merged := make([]results.Result, len(recordedRs))
	flaky := 0
	for i, r := range recordedRs {
		merged[i] = r
		if n, ok := now[key{r.Case, r.Model}]; ok {
			merged[i] = results.Rerun(r, n)
			if merged[i].Status == results.StatusPass {
				flaky++
			}
		}
	}
	if err := results.WriteFile(path, merged); err != nil {
		fmt.Fprintln(stderr, "gwconform run --rerun-failed:", err)
		return exitFailed
	}
	v := results.Judge(merged, ss.strict)
	con.summary(merged, v)
	fmt.Fprintf(stdout, "re-ran %d results: %d now pass (flaky), %d still fail, error or are throttled\n", len(again), flaky, len(again)-flaky)
	extra := reportExtra{planned: &recorded.Planned.CostUnits, uncovered: uncoveredModels(ss, stdout, stderr)}
	if err := writeReports(ss.settings, ss.suite.Catalog, merged, extra); err != nil {
		fmt.Fprintln(stderr, "gwconform run: writing reports:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "outputs in %s\n", ss.out)
	return exitCode(v)
}

// sameRun refuses, saying why, settings that differ from the run recorded
// in --out: continuing it (--resume, --rerun-failed) with others would mix
// two runs in one results.jsonl.
func sameRun(ss *session, recorded conformance.Manifest, flag, doing string, stderr io.Writer) bool {
	d := recorded.Differences(ss.manifest(nil))
	if len(d) == 0 {
		return true
	}
	fmt.Fprintf(stderr, "gwconform run %s: %s holds another run; %s with these settings would mix two runs:\n  %s\n"+
		"(drop the flags that differ: the recorded run's settings are used)\n", flag, ss.out, doing, strings.Join(d, "\n  "))
	return false
}
