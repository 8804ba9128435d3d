package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
)

// readClients reads --clients and --require-clients, refusing a glob that
// matches no library and a name that is none.
func readClients(f *engineFlags, s *settings) error {
	s.clients, s.requireClients = f.set.List("clients"), f.set.List("require-clients")
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
// reads; none for observed traffic, which runs no case.
func clientReadiness(s *settings, rs []results.Result) []results.ClientReadiness {
	if len(rs) == 0 || rs[0].Observed {
		return nil
	}
	table, err := catalog.EmbeddedClients()
	if err != nil { // the committed table is checked by the catalog's tests
		return nil
	}
	return results.ReadinessRows(table, shownClients(s), rs)
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
