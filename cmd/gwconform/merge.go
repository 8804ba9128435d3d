package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/markdown"
	"github.com/gwconform/gwconform/report/runs"
)

// runMerge rebuilds one report from shard outputs: each IN is a
// results.jsonl, a report.json, or a directory holding a results.jsonl.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strict := fs.Bool("strict", false, "strict-tier failures count in the report's verdict")
	casesDir := fs.String("cases", "", "case directory the results came from (default: the embedded catalog)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gwconform merge [flags] OUT IN...   (IN: results.jsonl, report.json or a directory)")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return exitNotStart
	}
	out := fs.Arg(0)
	var shards [][]results.Result
	var reps []*reportv1.Report
	given := map[string]string{} // an input's results, as read → where
	for _, in := range fs.Args()[1:] {
		rs, rep, err := readInput(in)
		if err != nil {
			fmt.Fprintf(stderr, "gwconform merge: %s: %v\n", in, err)
			return exitNotStart
		}
		b, _ := json.Marshal(rs)
		if first, twice := given[string(b)]; twice {
			fmt.Fprintf(stderr, "gwconform merge: %s holds the same results as %s: give each shard or run once\n", in, first)
			return exitNotStart
		}
		given[string(b)] = in
		shards = append(shards, rs)
		reps = append(reps, rep)
	}
	whole, err := joinRuns(fs.Args()[1:], reps, shards)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitNotStart
	}
	merged, err := runs.Merge(shards...)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitNotStart
	}
	suite, err := conformance.LoadSuite(*casesDir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitNotStart
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitNotStart
	}
	if err := results.WriteFile(filepath.Join(out, results.FileName), merged); err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	s := &settings{out: out, strict: *strict}
	s.target.BaseURL, s.target.KindBaseURLs, s.target.Offers, s.target.Names = whole.baseURL, whole.kindBases, whole.offers, whole.names
	extra := mergeExtra(reps, &s.selection)
	extra.completion, extra.started, extra.finished = whole.completion, whole.started, whole.finished
	if err := writeReports(s, whole.baseURL == "", suite.Catalog, merged, extra); err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	v := results.Judge(merged, *strict, whole.completion)
	fmt.Fprintf(stdout, "merged %d results from %d inputs into %s\n%s: %s\n", len(merged), len(shards), out, strings.ToUpper(string(v.Outcome)), v.Headline)
	for _, n := range v.Notes { // as run's console says them
		fmt.Fprintf(stdout, "  - %s\n", n)
	}
	return exitCode(v)
}

// mergedRun is what the inputs' reports say of the whole they make: one
// gateway (the base of each key kind whose cases ran), the offer they
// share, the names the models were sent as, the real span, and what of
// the plan has no result.
type mergedRun struct {
	baseURL           string
	kindBases         map[catalog.KeyKind]string
	offers            []string
	names             plan.ModelNames
	started, finished time.Time
	completion        results.Completion
}

// joinRuns checks that the inputs are parts of one run (--shard i/n) or
// runs of one gateway (the same hosts: a gateway routed under prefixes,
// tested a key kind at a time) and says what the whole is: it refuses
// inputs of different gateways or catalogs, of splits of different sizes,
// or that sent a model under different names, and names the shards none
// of them is. Runs are not shards: no shard is missing of a whole run. An
// input without its report.json (a bare results.jsonl) says nothing of
// these and is taken as it is.
func joinRuns(ins []string, reps []*reportv1.Report, rss [][]results.Result) (mergedRun, error) {
	var w mergedRun
	var split shardSplit
	var named []runs.NamedReport
	first := -1
	for i, r := range reps {
		if r == nil {
			continue
		}
		named = append(named, runs.NamedReport{Name: ins[i], Report: r})
		if first < 0 {
			first, w.baseURL = i, r.Metadata.BaseURL
		}
		if err := oneGateway(ins[first], reps[first].Metadata, ins[i], r.Metadata); err != nil {
			return w, err
		}
		w.add(r.Metadata)
		if err := split.add(ins[i], r.Metadata.Shard); err != nil {
			return w, err
		}
	}
	w.completion.MissingShards = append(w.completion.MissingShards, split.missing()...)
	if first < 0 {
		return w, nil
	}
	w.offers = commonOffers(reps)
	modelMap, err := runs.MergeModelMaps(named)
	if err != nil {
		return w, err
	}
	w.names = modelNames(modelMap)
	return w, w.kindBasesFrom(ins, reps, rss)
}

// modelNames is a report's model map as a run's settings hold it, so the
// merged report records it as the runs did (writeReports).
func modelNames(modelMap []reportv1.ModelName) plan.ModelNames {
	n := plan.ModelNames{Entries: map[string]plan.ModelName{}}
	for _, m := range modelMap {
		n.Entries[m.Spec] = plan.ModelName{Spec: m.Spec, Gateway: m.Gateway, Key: catalog.KeyKind(m.Key), Source: plan.NameSource(m.Source),
			Candidates: m.Candidates, Unlisted: m.Unlisted, Why: m.Why}
	}
	return n
}

// oneGateway refuses two inputs of different gateways or catalogs.
func oneGateway(firstIn string, first reportv1.Metadata, in string, m reportv1.Metadata) error {
	if !slices.Equal(hosts(m), hosts(first)) {
		return fmt.Errorf("%s tested %s, %s tested %s: runs merged test one gateway (the same host, or the same bases)", firstIn, first.Gateway(), in, m.Gateway())
	}
	if m.CatalogHash != first.CatalogHash {
		return fmt.Errorf("%s ran catalog %s, %s ran catalog %s: shards of one run share one catalog", firstIn, markdown.Short(first.CatalogHash, 12), in, markdown.Short(m.CatalogHash, 12))
	}
	return nil
}

// add joins an input's span and what of its plan has no result.
func (w *mergedRun) add(m reportv1.Metadata) {
	if w.started.IsZero() || (!m.Started.IsZero() && m.Started.Before(w.started)) {
		w.started = m.Started
	}
	if m.Finished.After(w.finished) {
		w.finished = m.Finished
	}
	if c := m.Completion; c != nil {
		w.completion.Interrupted = w.completion.Interrupted || c.Interrupted
		w.completion.Planned += c.Planned
		w.completion.Unrun += c.Unrun
		w.completion.MissingShards = append(w.completion.MissingShards, c.MissingShards...)
	}
}

// shardSplit is the shards (--shard i/n) among the inputs: one split, of
// one size. A whole run is no shard.
type shardSplit struct {
	count int
	have  map[int]bool
}

func (s *shardSplit) add(in, shard string) error {
	if shard == "" {
		return nil
	}
	sh, err := plan.ParseShard(shard)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if s.count != 0 && sh.Count != s.count {
		return fmt.Errorf("%s is shard %s, another input is of %d shards: shards of one run split it alike", in, shard, s.count)
	}
	if s.have == nil {
		s.have = map[int]bool{}
	}
	s.count = sh.Count
	s.have[sh.Index] = true
	return nil
}

// missing names the shards of the split that no input is.
func (s *shardSplit) missing() []string {
	var out []string
	for i := 1; i <= s.count; i++ {
		if !s.have[i] {
			out = append(out, plan.Shard{Index: i, Count: s.count}.String())
		}
	}
	return out
}

// hosts are the scheme and host of every base a run's report names, sorted:
// what makes two runs runs of one gateway.
func hosts(m reportv1.Metadata) []string {
	var out []string
	for _, base := range append(slices.Collect(maps.Values(m.KindBaseURLs)), m.BaseURL) {
		h := base
		if u, err := url.Parse(base); err == nil && u.Host != "" {
			h = u.Scheme + "://" + u.Host
		}
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// kindBasesFrom says at which base each key kind's cases ran: the base
// of the input whose results of that kind ran. A kind that ran at two
// bases is refused: the whole would name one of them wrongly.
func (w *mergedRun) kindBasesFrom(ins []string, reps []*reportv1.Report, rss [][]results.Result) error {
	at, from := map[catalog.KeyKind]string{}, map[catalog.KeyKind]string{}
	for i, r := range reps {
		if r == nil {
			continue
		}
		for _, res := range rss[i] {
			if res.Status == vocab.StatusSkip || res.Key == "" {
				continue
			}
			k := catalog.KeyKind(res.Key)
			base := cmp.Or(r.Metadata.KindBaseURLs[res.Key], r.Metadata.BaseURL)
			if prev, ok := at[k]; ok && prev != base {
				return fmt.Errorf("%s ran the %s key's cases at %s, %s at %s: one kind, one base", from[k], k, prev, ins[i], base)
			}
			at[k], from[k] = base, ins[i]
		}
	}
	for k, base := range at {
		if base == w.baseURL {
			continue
		}
		if w.kindBases == nil {
			w.kindBases = map[catalog.KeyKind]string{}
		}
		w.kindBases[k] = base
	}
	return nil
}

// commonOffers is the offer every input with a report declared alike; none
// (every feature) when they differ: their not-offered skips yield to the
// results that ran.
func commonOffers(reps []*reportv1.Report) []string {
	var offers []string
	seen := false
	for _, r := range reps {
		if r == nil {
			continue
		}
		if seen && !slices.Equal(offers, r.Metadata.Offers) {
			return nil
		}
		offers, seen = r.Metadata.Offers, true
	}
	return offers
}

// readInput reads an input's results, and the report.json it is or that
// sits beside its results.jsonl (a shard's --out), each file once. The
// report, nil when there is none, carries what results do not: the
// gateway, the plan's cost, the models no case covers.
func readInput(in string) ([]results.Result, *reportv1.Report, error) {
	if strings.HasSuffix(in, ".json") {
		r, err := readReport(in)
		if err != nil {
			return nil, nil, err
		}
		return r.Results, r, nil
	}
	path, beside := in, filepath.Join(filepath.Dir(in), report.FileJSON)
	if st, err := os.Stat(in); err == nil && st.IsDir() {
		path, beside = filepath.Join(in, results.FileName), filepath.Join(in, report.FileJSON)
	}
	rs, err := results.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := readReport(beside)
	if err != nil {
		r = nil
	}
	return rs, r, nil
}

// mergeExtra joins the shards' cost and coverage: the planned cost and the
// budget are sums when every shard says them (each shard planned and
// spent apart), the models no case covers a union.
func mergeExtra(reps []*reportv1.Report, sel *plan.Selection) reportExtra {
	var extra reportExtra
	planned, budget := 0.0, 0.0
	allPlanned, allBudget := true, true
	seen := map[reportv1.UncoveredModel]bool{}
	for _, r := range reps {
		if r == nil {
			allPlanned, allBudget = false, false
			continue
		}
		if r.Cost.Planned == nil {
			allPlanned = false
		} else {
			planned += *r.Cost.Planned
		}
		if r.Cost.Budget == 0 {
			allBudget = false
		}
		budget += r.Cost.Budget
		for _, u := range r.UncoveredModels {
			if !seen[u] {
				seen[u] = true
				extra.uncovered = append(extra.uncovered, u)
			}
		}
	}
	if allPlanned && len(reps) > 0 {
		extra.planned = &planned
	}
	if allBudget {
		sel.MaxCost = budget
	}
	return extra
}
