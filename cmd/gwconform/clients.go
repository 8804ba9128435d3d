package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
)

// readClients reads --clients and --require-clients, refusing a glob that
// matches no library and a name that is none.
func readClients(f *engineFlags, s *settings) error {
	s.clients = f.set.List("clients")
	if f.fs.Lookup("require-clients") != nil { // probe judges a model: nothing it finds decides
		s.requireClients = f.set.List("require-clients")
	}
	table, err := catalog.EmbeddedClients()
	if err != nil {
		return err
	}
	return results.CheckClientNames(table, s.clients, s.requireClients)
}

// shownClients are the globs of the libraries the console and the reports
// show: --clients, and the required libraries beside them, as they decide;
// none: every library.
func shownClients(s *settings) []string {
	if len(s.clients) == 0 {
		return nil
	}
	return append(append([]string{}, s.clients...), s.requireClients...)
}

// clientReadiness is the readiness the console shows and --require-clients
// reads; none before any result.
func clientReadiness(s *settings, rs []results.Result) []results.ClientReadiness {
	if len(rs) == 0 {
		return nil
	}
	rows, _ := results.EmbeddedReadiness(shownClients(s), rs) // the committed table is checked by lint and the catalog's tests
	return rows
}

// readinessBecause is how much of a verdict's first reason the console
// prints; report.json and matrix.md carry it whole.
const readinessBecause = 240

// printReadiness writes each library's readiness under the summary: its
// verdict and features (* its basic path), and for one not READY the
// first check that decides it and the library's dependency.
func printReadiness(w io.Writer, rows []results.ClientReadiness, required []string) {
	if len(rows) == 0 {
		return
	}
	decides := "reported, not deciding"
	if len(required) > 0 {
		decides = "--require-clients " + strings.Join(required, ",") + " decides"
	}
	fmt.Fprintf(w, "\nCLIENT READINESS (%s; * basic path)\n", decides)
	for _, r := range rows {
		fmt.Fprintf(w, "  %-26s %-10s %s\n", r.Client, r.Verdict.Label(), r.FeatureLine())
		if len(r.Because) > 0 {
			more := ""
			if n := len(r.Because) - 1; n > 0 {
				more = fmt.Sprintf(" (+%d more in report.json)", n)
			}
			fmt.Fprintf(w, "      %s%s\n", results.Truncate(r.Because[0], readinessBecause), more)
		}
	}
}

// requiredExit is exitFailed, said on stderr, when a library the gateway
// promises is NOT READY or LIMITED; else code.
func requiredExit(code int, rows []results.ClientReadiness, required []string, command string, stderr io.Writer) int {
	failing := results.RequiredFailing(rows, required)
	if len(failing) == 0 {
		return code
	}
	for _, r := range failing {
		fmt.Fprintf(stderr, "gwconform %s: --require-clients: %s is %s\n", command, r.Client, r.Verdict.Label())
	}
	return exitFailed
}

// printProbeReadiness prints, per probed model, the readiness of each
// library for the features the model's cases cover
// (results.ModelReadiness): whether that library will work with the new
// model.
func printProbeReadiness(w io.Writer, models []plan.NewModel, rs []results.Result, clients []string) {
	table, err := catalog.EmbeddedClients()
	if err != nil {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nMODEL\tLIBRARY\tREADINESS\tFEATURES")
	for _, m := range models {
		for _, row := range results.ModelReadiness(table, clients, m.ID, rs) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, row.Client, row.Verdict.Label(), row.FeatureLine())
		}
	}
	_ = tw.Flush()
}
