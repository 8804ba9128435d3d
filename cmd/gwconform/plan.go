package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/vocab"
)

func runPlan(args []string, stdout, stderr io.Writer) int {
	f := newEngineFlags("plan", stdout)
	s, err := f.parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK // the usage is printed
	}
	if err != nil {
		fmt.Fprintln(stderr, "gwconform plan:", err)
		return exitNotStart
	}
	suite, err := conformance.LoadSuite(s.casesDir, s.casesExtra...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitNotStart
	}
	if err := errors.Join(s.selection.Check(suite.Catalog, s.target.Names), plan.CheckModelMap(suite.Catalog, s.target.Names.Given)); err != nil {
		fmt.Fprintln(stderr, "gwconform plan:", err)
		return exitNotStart
	}
	if s.target.BaseURL == "" {
		// The in-process gateway has every key: plan as run would.
		for _, k := range catalog.KeyKinds {
			if s.target.Keys[k] == "" {
				s.target.Keys[k] = "local"
			}
		}
		if s.target.PublicImageURL == "" {
			s.target.PublicImageURL = "https://127.0.0.1/local"
		}
	}
	calls, err := plan.Make(suite.Catalog, s.target, s.selection)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform plan:", err)
		return exitNotStart
	}
	printPlan(stdout, calls, s.selection)
	need := conformance.EstimateDuration(calls, s.options.Concurrency)
	fmt.Fprintf(stdout, "against a real gateway this takes about %s at --concurrency %d; for go test use -timeout %s (or 0)\n",
		need.Round(time.Minute), s.options.Concurrency, (need + need/2).Round(time.Minute))
	return exitOK
}

// printPlan writes the calls per key and model, then the totals, and what
// the budgets cut.
func printPlan(w io.Writer, calls []plan.Call, sel plan.Selection) {
	sum := plan.Summarize(calls)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tMODEL\tCALLS\tCOST UNITS")
	for _, k := range catalog.KeyKinds {
		models := make([]string, 0, len(sum.Calls[k]))
		for m := range sum.Calls[k] {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\n", k, m, sum.Calls[k][m], sum.Units[k][m])
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "total: %d calls, %d skipped, %d final images, %.1f cost units\n", sum.Total, sum.Skipped, sum.Images, sum.TotalUnits)
	if n := controls(calls); n > 0 {
		fmt.Fprintf(w, "controls: %d of these calls added: verified cases that selected negatives name as their control (a refusal is judged beside its control)\n", n)
	}
	if sel.MaxCalls > 0 || sel.MaxCost > 0 {
		over := 0
		for _, c := range calls {
			if c.Skip != nil && c.Skip.Check == vocab.CheckBudget {
				over++
			}
		}
		fmt.Fprintf(w, "budget:")
		if sel.MaxCalls > 0 {
			fmt.Fprintf(w, " --max-calls %d", sel.MaxCalls)
		}
		if sel.MaxCost > 0 {
			fmt.Fprintf(w, " --max-cost %g (%.1f units planned)", sel.MaxCost, sum.TotalUnits)
		}
		fmt.Fprintf(w, "; %d calls over it skipped\n", over)
	}
	fmt.Fprintln(w, "(a cost unit is one text call; a 1024x1024 high-quality image is 10 units, scaled by pixels and quality; a preview 20% of its image)")
}

// controls counts the calls planned only as the control of a negative.
func controls(calls []plan.Call) int {
	n := 0
	for _, c := range calls {
		if c.Control {
			n++
		}
	}
	return n
}
