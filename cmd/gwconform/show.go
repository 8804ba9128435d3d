package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/modelid"
	"github.com/gwconform/gwconform/conformance/observe"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// runShow prints one result of a run: what it judged, every reason, the
// request id and the transcript; with --curl, a command that sends the
// same request again.
func runShow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform show", flag.ContinueOnError)
	fs.SetOutput(stdout) // the usage -h asks for; a refusal is said below
	model := fs.String("model", "", "the `MODEL` of the result (default: the case's first result that did not pass, else its first)")
	curl := fs.Bool("curl", false, "add a curl command that sends the request again: the key as its variable, never its value; multipart files written under DIR/curl")
	// The run's own settings rows: --out, and with --curl headers to send
	// instead of the run's (flags, variables, gwconform.yaml), ${VAR} left
	// for the shell.
	names := []string{"config", "out", "header"}
	for _, k := range catalog.KeyKinds {
		names = append(names, string(k)+"-header")
	}
	set := conformance.NewSettings(fs, names...)
	operands, err := set.ParseOperands(args, "[flags] CASE")
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "gwconform show: %v\n", err)
		return exitNotStart
	case len(operands) != 1:
		fmt.Fprintln(stderr, "gwconform show: give one CASE after the flags (gwconform show -h lists them)")
		return exitNotStart
	}
	out := set.String("out")
	caseID := operands[0]
	rs, err := results.ReadFile(filepath.Join(out, results.FileName))
	if err != nil {
		fmt.Fprintf(stderr, "gwconform show: %v\n", err)
		return exitNotStart
	}
	r, err := pickResult(rs, caseID, *model)
	if err != nil {
		fmt.Fprintf(stderr, "gwconform show: %v\n", err)
		return exitNotStart
	}
	printResult(stdout, r)
	if !*curl {
		return exitOK
	}
	m, _ := conformance.ReadManifest(out) // no manifest: the embedded catalog, the base URL as a variable
	headers := append(set.List("header"), set.List(r.Key+"-header")...)
	build := curlCommand
	if r.Observed {
		build = observedCurl
	}
	cmd, err := build(m, r, filepath.Join(out, "curl"), headers)
	if err != nil {
		fmt.Fprintf(stderr, "gwconform show --curl: %v\n", err)
		return exitNotStart
	}
	fmt.Fprintf(stdout, "\ncurl (%s; export it first):\n%s\n", keySaid(r.Key), cmd)
	return exitOK
}

// pickResult finds the case's result for model, or the case's first
// result that did not pass, else its first.
func pickResult(rs []results.Result, caseID, model string) (results.Result, error) {
	var of []results.Result
	for _, r := range rs {
		if r.Case == caseID && (model == "" || r.Model == model || r.GatewayModel == model || slices.Contains(modelid.VendorSpellings(r.Model), model)) {
			of = append(of, r)
		}
	}
	if len(of) == 0 {
		var models []string
		for _, r := range rs {
			if r.Case == caseID && !slices.Contains(models, r.Model) {
				models = append(models, r.Model)
			}
		}
		if len(models) > 0 {
			return results.Result{}, fmt.Errorf("case %s has no result for model %q; it has %s", caseID, model, strings.Join(models, ", "))
		}
		var cases []string
		for _, r := range rs {
			cases = append(cases, r.Case)
		}
		return results.Result{}, fmt.Errorf("no result for case %q in this run%s", caseID, catalog.Closest(caseID, cases))
	}
	for _, r := range of {
		if r.Status != vocab.StatusPass {
			return r, nil
		}
	}
	return of[0], nil
}

// printResult writes what one result judged, and why.
func printResult(w io.Writer, r results.Result) {
	fmt.Fprintf(w, "%s × %s: %s (%s tier, %s)\n", r.Case, r.Model, strings.ToUpper(string(r.Status)), r.Tier, r.Feature)
	if r.Spec != "" {
		fmt.Fprintf(w, "spec: %s\n", r.Spec)
	}
	if r.Requirement != "" {
		fmt.Fprintf(w, "requirement: %s\n", r.Requirement)
	}
	for _, reason := range r.Reasons {
		fmt.Fprintf(w, "  - %s\n", reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if r.Aside {
		fmt.Fprintln(w, "reported aside: the client side of a relay, where the gateway is on trial")
	}
	if r.RequestID != "" {
		fmt.Fprintf(w, "request id: %s\n", r.RequestID)
	}
	fmt.Fprintf(w, "%d attempts, %d ms from the send", r.Attempts, r.DurationMS)
	if r.Waits > 0 {
		fmt.Fprintf(w, ", %d waits on the rate limit (%d ms)", r.Waits, r.WaitMS)
	}
	fmt.Fprintln(w)
	if r.Transcript != nil {
		printTranscript(w, r.Transcript)
	}
}

// printTranscript writes a result's transcript, a round at a time: the
// request's headers and body (>), the response's (<), its events timed.
func printTranscript(w io.Writer, t *results.Transcript) {
	fmt.Fprintln(w, "\ntranscript:")
	for i, rd := range t.Rounds {
		fmt.Fprintf(w, "%d. %s %s (%s key) → %d after %d ms\n", i+1, rd.Method, rd.Path, rd.Key, rd.Status, rd.ReceivedMS)
		for _, h := range rd.RequestHeader {
			fmt.Fprintf(w, "   > %s\n", h)
		}
		if rd.RequestBody != "" {
			fmt.Fprintf(w, "   > %s\n", rd.RequestBody)
		}
		for _, h := range rd.ResponseHeader {
			fmt.Fprintf(w, "   < %s\n", h)
		}
		if rd.ResponseBody != "" {
			fmt.Fprintf(w, "   < %s\n", rd.ResponseBody)
		}
		for _, e := range rd.Events {
			fmt.Fprintf(w, "   < +%d ms %s\n", e.OffsetMS, e.Text)
		}
		if rd.OmittedEvents > 0 {
			fmt.Fprintf(w, "   < … %d events left out\n", rd.OmittedEvents)
		}
	}
	if t.OmittedRounds > 0 {
		fmt.Fprintf(w, "… %d rounds left out\n", t.OmittedRounds)
	}
	if t.Exchange != "" {
		fmt.Fprintf(w, "exchange: %s\n", t.Exchange)
	}
}

// curlCommand renders the result's request again from the run's catalog
// (execute.CurlCommand), under the names the run gave the models: to the
// base URL the run had (its variable for the in-process gateway), with the
// headers given, else the run's (its manifest), multipart files written
// under dir.
func curlCommand(m conformance.Manifest, r results.Result, dir string, headers []string) (string, error) {
	suite, err := conformance.LoadSuite(m.CasesDir, m.CasesExtra...)
	if err != nil {
		return "", err
	}
	cs := suite.Catalog.Case(r.Case)
	if cs == nil {
		return "", fmt.Errorf("case %q is not in the catalog the run used", r.Case)
	}
	var names plan.ModelNames // the run's names for the spec's ids, as it sent them
	if m.ModelNames != nil {
		names = *m.ModelNames
	}
	rendered, err := suite.Catalog.Render(cs, r.Model, catalog.Env{PublicImageURL: "${GWCONFORM_PUBLIC_IMAGE_URL}",
		ModelName: func(id string) string { return names.Gateway(cs.Key, id) }})
	if err != nil {
		return "", err
	}
	t := plan.Target{BaseURL: m.BaseURL}
	t.SetKindBases(m.KindBaseURLs)
	if len(headers) == 0 { // the run's own, as its manifest keeps them
		t.SetHeaderLines(m.Headers)
		headers = t.ReplayHeaders(cs.Key, rendered.Path)
	}
	base := t.BaseForPath(cs.Key, rendered.Path)
	if base == "" {
		base = execute.BaseURLVariable(t, cs.Key, rendered.Path) // the in-process gateway's is gone with the run
	}
	return execute.CurlCommand(cs, rendered, base, headers, dir)
}

// keySaid says where a curl command's key comes from.
func keySaid(kind string) string {
	if v := plan.KeyVariables[catalog.KeyKind(kind)]; v != "" {
		return "the key from " + v
	}
	return "the base URL from " + plan.BaseURLVariables[""] + "; the client sent no key of a configured kind"
}

// observedCurl sends an observed exchange's request again, rebuilt from
// the recording that keeps it whole, to the base URL as its variable.
func observedCurl(_ conformance.Manifest, r results.Result, dir string, headers []string) (string, error) {
	cs, rendered, err := observe.Reproduce(r)
	if err != nil {
		return "", err
	}
	return execute.CurlCommand(cs, rendered, "${"+plan.BaseURLVariables[""]+"}", headers, dir)
}
