package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// runProbe finds the models each key lists that the catalog does not know,
// runs their family's cases, prints a capability row per model and the YAML
// that adds each model to the cases it passed.
func runProbe(args []string, stdout, stderr io.Writer) int {
	f := newEngineFlags("probe", stdout, "model-id", "family", "clients")
	ss, code := f.openSession(args, stderr, func(s *settings) error {
		model, family := f.set.String("model-id"), f.set.String("family")
		if (model == "") != (family == "") || (family != "" && !validKind(family)) {
			return errors.New("--model-id and --family go together; family is text, messages, image or alt")
		}
		if f.set.Source("out") == "" { // the default, not a choice
			s.out = filepath.Join(s.out, "probe") // keep a run's outputs apart
		}
		s.everyKey = true
		return readClients(f, s)
	})
	if ss == nil {
		return code
	}
	defer ss.close()

	models, err := probedModels(f, ss, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform probe:", err)
		return exitFailed
	}
	if len(models) == 0 {
		fmt.Fprintln(stdout, "no new models: every model the keys list is in the catalog")
		return exitOK
	}
	for _, m := range models {
		fmt.Fprintf(stdout, "new model %s (%s key)\n", m.ID, m.Key)
	}
	calls, err := plan.Probe(ss.suite.Catalog, ss.target, models, ss.selection)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform probe:", err)
		return exitNotStart
	}
	rs, con, err := runProbeCalls(ss, calls)
	interrupted := ss.ctx.Err() != nil
	if err != nil {
		fmt.Fprintln(stderr, "gwconform probe:", err)
		return exitFailed
	}
	planned := plan.Summarize(calls).TotalUnits
	code = ss.finish(ending{command: "probe", plan: calls, results: rs, con: con, interrupted: interrupted,
		planned: &planned, discovery: true}, io.Discard, stderr)
	if code != exitOK {
		return code
	}
	printProbe(stdout, models, rs, plan.ProposeMaps(ss.suite.Catalog, ss.target.Names, models))
	printProbeReadiness(stdout, models, rs, ss.clients)
	fmt.Fprintf(stdout, "\nreports in %s\n", filepath.Clean(ss.out))
	return exitOK
}

// probedModels are the models to probe: the one --model-id names, or the
// models the keys list that the catalog does not know.
func probedModels(f *engineFlags, ss *session, stderr io.Writer) ([]plan.NewModel, error) {
	if model := f.set.String("model-id"); model != "" {
		return []plan.NewModel{{ID: model, Key: catalog.KeyKind(f.set.String("family"))}}, nil
	}
	return execute.FindNewModels(ss.ctx, ss.suite.Catalog, ss.target, listOptions("gwconform probe", ss.options.Timeout, stderr))
}

// runProbeCalls runs the probe's calls, results.jsonl written as each
// finishes.
func runProbeCalls(ss *session, calls []plan.Call) ([]results.Result, *console, error) {
	if err := os.MkdirAll(ss.out, 0o755); err != nil {
		return nil, nil, err
	}
	w, err := results.Create(filepath.Join(ss.out, results.FileName))
	if err != nil {
		return nil, nil, err
	}
	rs, con, err := runCalls(ss, calls, nil, io.Discard, w.Write)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return rs, con, err
}

// printProbe prints what the probe found: a capability row per model, the
// --model-map pair of a new model that is a spec model under another name
// (plan.ProposeMaps), the YAML that adds each other model to the cases it
// passed, and the offer line of a family the gateway does not serve at
// all.
func printProbe(stdout io.Writer, models []plan.NewModel, rs []results.Result, maps []plan.MapProposal) {
	printCapabilities(stdout, models, rs)
	fmt.Fprintln(stdout)
	mapped := map[string]bool{}
	for _, p := range maps {
		mapped[p.Listed] = true
		fmt.Fprintf(stdout, "# %s is not in the %s key's list, and %s is the one model it lists that the catalog does not know:\n# if %s is %s under another name, map it rather than add it:\n--model-map %s=%s\n\n",
			p.Spec, p.Key, p.Listed, p.Listed, p.Spec, p.Spec, p.Listed)
	}
	passed := map[string][]string{}
	for _, r := range rs {
		if r.Status == vocab.StatusPass && !mapped[r.Model] {
			passed[r.Model] = append(passed[r.Model], r.Case)
		}
	}
	if len(passed) > 0 || len(maps) == 0 {
		plan.WriteAdditions(stdout, passed)
	}
	if line := results.SuggestOffers(rs); line != "" {
		fmt.Fprintf(stdout, "\n# every verified request of a family answered 404: declare what the gateway offers\n%s\n", line)
	}
}

// printCapabilities prints one row per model: each feature's cell, with the
// matrix's semantics.
func printCapabilities(w io.Writer, models []plan.NewModel, rs []results.Result) {
	rep := report.Build(reportv1.Meta{Features: catalog.Features}, rs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nMODEL\tFEATURE\tCELL")
	for _, m := range models {
		for _, feature := range rep.Features {
			if c, ok := rep.Cell(m.ID, feature); ok && c.Status != "none" {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", m.ID, feature, c.Label)
			}
		}
	}
	tw.Flush()
}

func validKind(s string) bool {
	for _, k := range catalog.KeyKinds {
		if string(k) == s {
			return true
		}
	}
	return false
}
