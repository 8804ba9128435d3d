package plan

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Selection narrows the catalog. Every list holds globs (path.Match syntax);
// an empty list selects everything.
type Selection struct {
	Features []string
	Models   []string
	Cases    []string
	Tiers    []string
	// Shard, when Count > 0, keeps the calls whose stable hash falls into
	// shard Index (1-based) of Count.
	Shard Shard
	// MaxCalls caps the calls made; planned calls beyond it are skipped.
	// 0 means no cap.
	MaxCalls int
	// MaxCost caps the estimated cost units (EstimateCost) of the calls
	// made: a planned call whose estimate does not fit in what is left is
	// skipped, and a later, cheaper one that fits is still made. 0 means
	// no cap.
	MaxCost float64
	// From names where each glob list was given, by filter (feature,
	// model, case, tier: "--tier", "$GWCONFORM_TIERS", "gwconform.yaml:3:1"),
	// for Check's refusals; the flag's name when absent.
	From map[string]string
}

// Shard is one part of a split run.
type Shard struct{ Index, Count int }

// String writes the shard as ParseShard reads it, "i/n"; "" for the whole
// plan.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 <= i <= n", s)
	}
	return Shard{Index: index, Count: count}, nil
}

// Call is one case sent for one model. A call with a Skip is reported as
// skipped, with that reason, without any request.
type Call struct {
	Case  *catalog.Case
	Model string
	// Sent is the gateway's id for Model (Target.Names), what the request
	// names.
	Sent string
	Skip *vocab.Reason
	// Extra counts the requests the call makes beyond its own, known when
	// planned: the other keys' model lists of a differs_from check. (A case
	// with variants makes more only when the gateway declines a shape.)
	Extra int
	// Control marks a call the selection did not take, planned because a
	// negative call names its case as control: without its result the
	// negative's refusal cannot be judged (results.Settle).
	Control bool
}

// ID names the call as the go test subtests do: feature/model/case.
func (c Call) ID() string { return c.Case.Feature + "/" + c.Model + "/" + c.Case.ID }

// Make expands the catalog into calls: what decides the verdict first
// (verified and negative), then strict, then explore (verdictOrder); within
// a tier in catalog order, models in case order, each control before the
// negatives that wait for it. It is deterministic: the same catalog, target
// and selection give the same plan.
func Make(cat *catalog.Catalog, t Target, sel Selection) ([]Call, error) {
	var calls []Call
	for i := range cat.Cases {
		cs := &cat.Cases[i]
		if !sel.selects(cs) {
			continue
		}
		for _, model := range cs.Models {
			if matchAnyName(sel.Models, t.Names.Both(cs.Key, model)) {
				calls = append(calls, Call{Case: cs, Model: model})
			}
		}
	}
	return sel.finish(cat, calls, t)
}

// selects applies the feature, case and tier filters to a case.
func (sel Selection) selects(cs *catalog.Case) bool {
	return matchAny(sel.Features, cs.Feature) && matchAny(sel.Cases, cs.ID) && matchAny(sel.Tiers, string(cs.Tier))
}

// finish turns candidate calls into a plan: it adds the control call of
// each negative call the selection took without it, keeps the calls of the
// selected shard (a negative goes with its control) and marks those that
// cannot be made (a missing key or precondition, a control not made) or
// may not be (beyond the call budget) as skipped.
func (sel Selection) finish(cat *catalog.Catalog, candidates []Call, t Target) ([]Call, error) {
	for _, globs := range [][]string{sel.Features, sel.Models, sel.Cases, sel.Tiers} {
		for _, g := range globs {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("bad filter %q: %w", g, err)
			}
		}
	}
	byID := make(map[string]*catalog.Case, len(cat.Cases))
	for i := range cat.Cases {
		byID[cat.Cases[i].ID] = &cat.Cases[i]
	}
	var calls []Call
	candidates = withControls(cat, candidates)
	verdictOrder(candidates)
	candidates = controlsFirst(candidates)
	for _, call := range candidates {
		if sel.Shard.Count > 0 && shardOf(shardKey(call, byID), sel.Shard.Count) != sel.Shard.Index {
			continue
		}
		if call.Sent == "" { // a probe's new model is sent as its list names it
			call.Sent = t.Names.Gateway(call.Case.Key, call.Model)
		}
		call.Skip = skipReason(call, t)
		call.Extra = extraRequests(call.Case, t)
		calls = append(calls, call)
	}
	Budget{Calls: sel.MaxCalls, Cost: sel.MaxCost}.Apply(calls)
	return calls, nil
}

// verdictOrder puts the calls that decide the verdict first, keeping the
// order within each rank. An interrupt, a CI job's timeout or a budget then
// leaves explore undone, not the verdict; strict comes before explore
// because --strict counts it.
func verdictOrder(calls []Call) {
	rank := func(c Call) int {
		switch c.Case.Tier {
		case vocab.TierVerified, vocab.TierNegative:
			return 0
		case vocab.TierStrict:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(calls, func(a, b Call) int { return rank(a) - rank(b) })
}

// Budget caps what a run spends: calls and estimated cost units (0: no
// cap). Made and Spent are what earlier runs of the same plan already used
// (--rerun-failed re-runs within what is left).
type Budget struct {
	Calls int
	Cost  float64
	Made  int
	Spent float64
}

// Apply skips, in plan order, the calls that do not fit: beyond Calls
// calls, or whose estimate does not fit in the Cost units left. A later,
// cheaper call that still fits is made. Calls already skipped spend nothing.
// A negative call whose control call (before it: the plan's order) is not
// made is not made either (withoutControl): pairs stay together.
func (b Budget) Apply(calls []Call) {
	made, spent := b.Made, b.Spent
	at := make(map[results.CaseModel]int, len(calls))
	for i := range calls {
		at[calls[i].CaseModel()] = i
	}
	for i := range calls {
		if k, ok := calls[i].ControlKey(); ok && calls[i].Skip == nil {
			if j, found := at[k]; found && j < i && calls[j].Skip != nil {
				calls[i].Skip = withoutControl(calls[j])
			}
		}
		if calls[i].Skip != nil {
			continue
		}
		units := calls[i].Units()
		switch {
		case b.Calls > 0 && made >= b.Calls:
			calls[i].Skip = &vocab.Reason{Check: vocab.CheckBudget, Message: fmt.Sprintf("over the call budget (--max-calls %d)", b.Calls)}
		case b.Cost > 0 && spent+units > b.Cost+costEpsilon:
			calls[i].Skip = &vocab.Reason{Check: vocab.CheckBudget,
				Message: fmt.Sprintf("over the cost budget (--max-cost %g): this call's %.1f units do not fit in the %.1f left", b.Cost, units, max(b.Cost-spent, 0))}
		default:
			made++
			spent += units
		}
	}
}

// costEpsilon absorbs float rounding in sums of unit estimates, so a plan
// that spends its budget exactly is not refused its last call.
const costEpsilon = 1e-9

// skipReason says why a call cannot be sent to t, or nil when it can. A
// rejected key skips every case of its kind, the missing- and invalid-key
// cases too: the preflight already showed what the gateway makes of it. A
// model its key does not list is not sent; a case that only reads the list
// still runs, and says what is missing.
func skipReason(call Call, t Target) *vocab.Reason {
	cs := call.Case
	if !t.Offered(cs.Feature) {
		return &vocab.Reason{Check: vocab.CheckNotOffered, Message: fmt.Sprintf("%s is not offered (--offers %s)", cs.Feature, strings.Join(t.Offers, ","))}
	}
	if why, ok := t.Rejected[cs.Key]; ok {
		return &vocab.Reason{Check: vocab.CheckKeyRejected, Message: why}
	}
	if cs.Request.Auth != catalog.AuthNone && t.Keys[cs.Key] == "" {
		return &vocab.Reason{Check: vocab.CheckKeyMissing, Message: fmt.Sprintf("no %s key (set %s)", cs.Key, KeyVariables[cs.Key])}
	}
	if len(cs.Expect.DiffersFrom) > 0 && !slices.ContainsFunc(cs.Expect.DiffersFrom, t.Usable) {
		return &vocab.Reason{Check: vocab.CheckPrecondition, Message: fmt.Sprintf("no other key to compare the model list with (set one of %s)", keyVariables(cs.Expect.DiffersFrom))}
	}
	if why := t.Names.Unchecked(cs, call.Model); why != nil {
		return why
	}
	for _, req := range cs.Requires {
		switch req {
		case catalog.PreconditionPublicImageURL:
			if t.PublicImageURL == "" {
				return &vocab.Reason{Check: vocab.CheckPrecondition, Message: "no public image URL (set GWCONFORM_PUBLIC_IMAGE_URL): the URL-reference edit (spec 4.5) is not verified"}
			}
		}
	}
	return nil
}

// shardOf assigns a call to a shard by a stable hash of its ID, so shards
// stay balanced and a call keeps its shard when others are added.
func shardOf(id string, count int) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(count)) + 1
}

// matchAnyName applies a selection's globs to a model known by several
// names (the spec's id and the gateway's): an exclusion of either excludes
// it, an inclusion of either selects it.
func matchAnyName(globs []string, names []string) bool {
	selected := false
	for _, n := range names {
		for _, g := range globs {
			if pat, ok := strings.CutPrefix(g, "!"); ok {
				if m, _ := path.Match(pat, n); m {
					return false
				}
			}
		}
		selected = selected || matchAny(globs, n)
	}
	return selected
}

// matchAny applies a selection's globs to a name: with no glob every name
// is selected; "!glob" excludes what it matches; the other globs select
// what they match (all names when there are only exclusions).
func matchAny(globs []string, s string) bool {
	selected, includes := false, false
	for _, g := range globs {
		if pat, ok := strings.CutPrefix(g, "!"); ok {
			if m, _ := path.Match(pat, s); m {
				return false
			}
			continue
		}
		includes = true
		if m, _ := path.Match(g, s); m {
			selected = true
		}
	}
	return selected || !includes
}

// Check refuses a selection that cannot mean what was typed: a glob that
// is malformed or matches nothing in the catalog (its models by the spec's
// ids or the gateway's names for them; a typo that would
// otherwise narrow or empty the run without a word), and a tier that is
// not one of the tier names. Each refusal names the glob, with a
// did-you-mean.
func (sel Selection) Check(cat *catalog.Catalog, names ModelNames) error {
	var cases []string
	models := names.Aliases(cat)
	for i := range cat.Cases {
		cs := &cat.Cases[i]
		cases = append(cases, cs.ID)
		models = append(models, cs.Models...)
	}
	tiers := make([]string, len(vocab.Tiers))
	for i, t := range vocab.Tiers {
		tiers[i] = string(t)
	}
	from := func(filter string) string { return cmp.Or(sel.From[filter], "--"+filter) }
	errs := slices.Concat(
		checkGlobs(from("feature"), sel.Features, features(cat), false),
		checkGlobs(from("model"), sel.Models, models, false),
		checkGlobs(from("case"), sel.Cases, cases, false),
		checkGlobs(from("tier"), sel.Tiers, tiers, true))
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// CheckOffers refuses offers that cannot mean what was typed, as Check
// refuses a selection: a glob that is malformed or matches no feature of
// the catalog. A typo must not declare a family not offered in silence.
func CheckOffers(cat *catalog.Catalog, offers []string) error {
	if errs := checkGlobs("--offers", offers, features(cat), false); len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// features are the catalog's feature names, a name per case.
func features(cat *catalog.Catalog) []string {
	out := make([]string, len(cat.Cases))
	for i := range cat.Cases {
		out[i] = cat.Cases[i].Feature
	}
	return out
}

// checkGlobs says what is wrong with each glob of a flag: malformed, or
// matching none of names ("!glob" is checked as glob), or with exact, not
// one of names. Each refusal has a did-you-mean.
func checkGlobs(flag string, globs, names []string, exact bool) []string {
	var errs []string
	for _, g := range globs {
		pat := strings.TrimPrefix(g, "!")
		if _, err := path.Match(pat, ""); err != nil {
			errs = append(errs, fmt.Sprintf("%s %q: %v", flag, g, err))
			continue
		}
		if exact && !slices.Contains(names, pat) {
			errs = append(errs, fmt.Sprintf("%s %q: not a tier (%s)%s", flag, g, strings.Join(names, ", "), catalog.Closest(pat, names)))
			continue
		}
		if !slices.ContainsFunc(names, func(n string) bool { m, _ := path.Match(pat, n); return m }) {
			errs = append(errs, fmt.Sprintf("%s %q matches nothing in the catalog%s", flag, g, catalog.Closest(pat, withFamilies(names))))
		}
	}
	return errs
}

// withFamilies are the names, sorted, each once, with the glob of each
// dotted name's families ("images.*" and "images.edit.*" for
// images.edit.n): what a typed glob most likely meant.
func withFamilies(names []string) []string {
	out := slices.Clone(names)
	for _, n := range names {
		for i := range len(n) {
			if n[i] == '.' {
				out = append(out, n[:i]+".*")
			}
		}
	}
	return unique(out)
}

// unique returns the names sorted, each once.
func unique(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// Summary counts the calls of a plan that will reach the gateway, per key and
// model, and how many are skipped.
type Summary struct {
	Calls      map[catalog.KeyKind]map[string]int
	Units      map[catalog.KeyKind]map[string]float64 // estimated cost units (see Cost)
	Images     int                                    // final images requested in all
	Total      int                                    // calls to be made
	Requests   int                                    // HTTP requests they make at least (retries aside)
	Skipped    int
	TotalUnits float64
}

// Summarize counts a plan.
func Summarize(calls []Call) Summary {
	s := Summary{Calls: map[catalog.KeyKind]map[string]int{}, Units: map[catalog.KeyKind]map[string]float64{}}
	for _, c := range calls {
		if c.Skip != nil {
			s.Skipped++
			continue
		}
		if s.Calls[c.Case.Key] == nil {
			s.Calls[c.Case.Key] = map[string]int{}
			s.Units[c.Case.Key] = map[string]float64{}
		}
		s.Calls[c.Case.Key][c.Model]++
		s.Units[c.Case.Key][c.Model] += c.Units()
		s.TotalUnits += c.Units()
		s.Images += EstimateCost(c.Case).Images
		s.Total++
		s.Requests += 1 + c.Extra
	}
	return s
}

// Skipped is the result of a call planned as a skip.
func (c Call) Skipped() results.Result { return c.Result(vocab.StatusSkip, *c.Skip) }

// Result is a result of the call with status st: the case's fields, and
// the time now as its start.
func (c Call) Result(st vocab.Status, reasons ...vocab.Reason) results.Result {
	return results.Result{
		Case: c.Case.ID, Feature: c.Case.Feature, Model: c.Model, GatewayModel: c.gatewayModel(), Tier: c.Case.Tier, Status: st,
		Key: string(c.Case.Key), Spec: c.Case.Spec, Requirement: c.Case.Requirement,
		Reasons: reasons, Started: time.Now().UTC(), Params: c.Case.Params,
	}
}

// SentModel is the id the call's request names for its model: the
// gateway's (Sent), or the spec's where none was planned.
func (c Call) SentModel() string { return cmp.Or(c.Sent, c.Model) }

// gatewayModel is the gateway's id for the call's model where it differs
// from the spec's.
func (c Call) gatewayModel() string {
	if c.SentModel() == c.Model {
		return ""
	}
	return c.Sent
}

// Units estimates what the call costs: its case, and its extra model lists
// at the price of a text call.
func (c Call) Units() float64 { return EstimateCost(c.Case).Units + float64(c.Extra) }

// extraRequests: one model list per other configured key of differs_from.
func extraRequests(cs *catalog.Case, t Target) int {
	n := 0
	for _, k := range cs.Expect.DiffersFrom {
		if t.Usable(k) {
			n++
		}
	}
	return n
}

func keyVariables(kinds []catalog.KeyKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = KeyVariables[k]
	}
	return strings.Join(names, ", ")
}
