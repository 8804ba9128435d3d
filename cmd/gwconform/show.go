package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
)

// runShow prints one result of a run: what it judged, every reason, the
// request id and the transcript; with --curl, a command that sends the
// same request again.
func runShow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "out", "the run's output `DIR` (its results.jsonl)")
	model := fs.String("model", "", "the `MODEL` of the result (default: the case's first result that did not pass, else its first)")
	curl := fs.Bool("curl", false, "add a curl command that sends the request again: the key as its variable, never its value; multipart files written under DIR/curl")
	var all repeatFlag
	fs.Var(&all, "H", "with --curl: a header `'Name: value'` the run sent with every request (-H, --header; repeatable; ${VAR} is left for the shell)")
	fs.Var(&all, "header", "the same as -H")
	kinds := map[catalog.KeyKind]*repeatFlag{}
	for _, k := range catalog.KeyKinds {
		kinds[k] = &repeatFlag{}
		fs.Var(kinds[k], string(k)+"-header", fmt.Sprintf("with --curl: a header `'Name: value'` the run sent with the %s key's requests (repeatable)", k))
	}
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gwconform show [--out DIR] [--model MODEL] [--curl] CASE")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitNotStart
	}
	caseID := fs.Arg(0)
	rs, err := results.ReadFile(filepath.Join(*out, results.FileName))
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
	m, _ := conformance.ReadManifest(*out) // no manifest: the embedded catalog, the base URL as a variable
	headers := slices.Clone(all)
	if k := kinds[catalog.KeyKind(r.Key)]; k != nil {
		headers = append(headers, *k...)
	}
	cmd, err := curlCommand(m, r, filepath.Join(*out, "curl"), headers)
	if err != nil {
		fmt.Fprintf(stderr, "gwconform show --curl: %v\n", err)
		return exitNotStart
	}
	fmt.Fprintf(stdout, "\ncurl (the key from %s; export it first):\n%s\n", conformance.KeyVariables[catalog.KeyKind(r.Key)], cmd)
	return exitOK
}

// pickResult finds the case's result for model, or the case's first
// result that did not pass, else its first.
func pickResult(rs []results.Result, caseID, model string) (results.Result, error) {
	var of []results.Result
	for _, r := range rs {
		if r.Case == caseID && (model == "" || r.Model == model) {
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
		return results.Result{}, fmt.Errorf("no result for case %q in this run", caseID)
	}
	for _, r := range of {
		if r.Status != results.StatusPass {
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
	if r.RequestID != "" {
		fmt.Fprintf(w, "request id: %s\n", r.RequestID)
	}
	fmt.Fprintf(w, "%d attempts, %d ms from the send", r.Attempts, r.DurationMS)
	if r.Waits > 0 {
		fmt.Fprintf(w, ", %d waits on the rate limit (%d ms)", r.Waits, r.WaitMS)
	}
	fmt.Fprintln(w)
	t := r.Transcript
	if t == nil {
		return
	}
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
// (conformance.CurlCommand): to the base URL the run had (its variable for
// the in-process gateway), with the headers given, multipart files written
// under dir.
func curlCommand(m conformance.Manifest, r results.Result, dir string, headers []string) (string, error) {
	suite, err := conformance.LoadSuite(m.CasesDir)
	if err != nil {
		return "", err
	}
	cs := suite.Catalog.Case(r.Case)
	if cs == nil {
		return "", fmt.Errorf("case %q is not in the catalog the run used", r.Case)
	}
	rendered, err := suite.Catalog.Render(cs, r.Model, catalog.Env{PublicImageURL: "${GWCONFORM_PUBLIC_IMAGE_URL}"})
	if err != nil {
		return "", err
	}
	base := m.BaseURL
	if base == "" {
		base = conformance.BaseURLVariable
	}
	return conformance.CurlCommand(cs, rendered, base, headers, dir)
}
