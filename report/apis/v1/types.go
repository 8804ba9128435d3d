package v1

import (
	"cmp"
	"slices"
	"time"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// APIVersion and Kind identify the report.json format. Bump the version on any
// change that is not a pure addition; ReadJSON refuses versions it does not know.
const (
	APIVersion = "gwconform.dev/v1alpha1"
	Kind       = "ConformanceReport"
)

// ReferenceGateway is how every report names the in-process reference
// gateway (an empty base URL): its loopback address is a detail of one
// process, never worth comparing.
const ReferenceGateway = "reference gateway (in-process)"

// StandIn is how reports name the reference gateway answering a client
// under serve --judge: the client is on trial, not the gateway.
const StandIn = "the stand-in (serve --judge: the reference gateway answers; the client's requests are judged)"

// Meta is what the runner knows about a run beyond its results: what
// report.Build needs besides them. report.json carries it as Metadata.
type Meta struct {
	SuiteVersion string
	Commit       string
	CatalogHash  string
	// BaseURL is the gateway judged; empty for the in-process reference
	// gateway (ReferenceGateway). It never carries keys; report.Build strips
	// userinfo and query anyway.
	BaseURL string
	// KindBaseURLs are the key kinds sent to a base of their own
	// (--text-base-url and the like): the run used several bases.
	KindBaseURLs map[string]string
	// Offers are the feature globs the gateway declared (--offers); empty:
	// every feature.
	Offers   []string
	Started  time.Time
	Finished time.Time
	Features []string // column order: catalog.Features
	Strict   bool
	// Insecure: the gateway's certificate was not verified (--insecure).
	Insecure bool
	// MaxCost is the --max-cost budget (0: none) and PlannedCost the plan's
	// estimate of the calls it would make (nil: not known, e.g. results
	// re-rendered without their run's manifest).
	MaxCost     float64
	PlannedCost *float64
	// Uncovered are the models the gateway lists, per key, that no case of
	// the catalog names (coverage drift: gwconform probe finds what they do).
	Uncovered []UncoveredModel
	// Recording is the run --record directory that keeps the run's whole
	// exchanges; Replay, set for run --replay, names the recording judged.
	Recording string
	Replay    *Replay
	// Shard is the part of a split run these results are ("1/2"; empty:
	// the whole plan), so merge can tell a missing shard.
	Shard string
	// Completion says what of the plan has no result: an interrupt, a
	// missing shard (zero: the plan finished).
	Completion results.Completion
	// ModelMap is the name each spec model was sent as, and how it was
	// found (plan.ModelNames' records).
	ModelMap []ModelName
	// Traffic is set when the results judge observed traffic (gwconform
	// judge, serve --judge) rather than a run of the catalog.
	Traffic *Traffic
	// Clients are the globs of the client libraries whose readiness the
	// reports show (--clients); empty: every one.
	Clients []string
}

// NameSource is how a spec id came to the name it was sent as (the
// values of plan.NameSource: report.json keeps the engine's words).
type NameSource string

// Name sources.
const (
	NameListed    NameSource = "listed"    // the key's list names the spec id itself
	NameResolved  NameSource = "resolved"  // one id of the key's list names it in other words
	NameGiven     NameSource = "given"     // --model-map
	NameUnlisted  NameSource = "unlisted"  // the key's list names it in no way: nothing sent
	NameAmbiguous NameSource = "ambiguous" // several listed ids name it
	NameUnread    NameSource = "unread"    // the key's list could not be read: not sent unless mapped
)

// ModelName is what became of one spec id: the gateway's id it was sent
// as and how that was found. The spec id stays the key of cells, history
// and diff, so that two gateways and two nights compare.
type ModelName struct {
	Spec string `json:"spec"`
	// Gateway is the id sent; empty when unlisted or ambiguous.
	Gateway string `json:"gateway,omitempty"`
	// Key is the key kind whose list named it (text, messages, image,
	// alt); empty for a given name no list was read for.
	Key    string     `json:"key,omitempty"`
	Source NameSource `json:"source"`
	// Candidates are the listed ids that name it, when ambiguous.
	Candidates []string `json:"candidates,omitempty"`
	// Unlisted: a given name the key's list lacks, sent anyway.
	Unlisted bool `json:"unlisted,omitempty"`
	// Why is what the key's list answered, when it could not be read.
	Why string `json:"why,omitempty"`
}

// Renamed reports whether the gateway was sent another id than the spec's.
func (n ModelName) Renamed() bool { return n.Gateway != "" && n.Gateway != n.Spec }

// Replay says a run judged a recording, not a gateway: which recording,
// when it was made and against which gateway.
type Replay struct {
	Recording string    `json:"recording"`
	Recorded  time.Time `json:"recorded"`
	BaseURL   string    `json:"baseURL,omitempty"`
}

// UncoveredModel is a model a key lists that no case covers.
type UncoveredModel struct {
	Key   string `json:"key"`
	Model string `json:"model"`
}

// Cost is what a run planned and spent, in the estimate's cost units
// (one text call is 1; see gwconform plan).
type Cost struct {
	Budget float64 `json:"budget,omitempty"` // --max-cost; absent: no cap
	// Planned is the plan's estimate for the calls it would make; absent
	// when not known.
	Planned *float64 `json:"planned,omitempty"`
	// Actual sums the results' cost_units: every attempt of every call,
	// retries and --rerun-failed re-runs included, but for the requests
	// answered 4xx or 5xx (no output), which cost nothing.
	Actual float64 `json:"actual"`
	// Refused counts those requests, apart: 429s, refusals, 5xx answers.
	Refused int `json:"refused"`
}

// WaiverUse is one --waivers entry as this run used it: what it did, and
// the results it matched.
type WaiverUse struct {
	Case    string              `json:"case"`
	Model   string              `json:"model"`
	Reason  string              `json:"reason"`
	Link    string              `json:"link"`
	Expires string              `json:"expires"`
	Source  string              `json:"source"`
	State   results.WaiverState `json:"state"`
	Results []WaiverMatch       `json:"results"`
}

// WaiverMatch is one result a waiver matched.
type WaiverMatch struct {
	Model   string       `json:"model"`
	Feature string       `json:"feature"`
	Case    string       `json:"case"`
	Status  vocab.Status `json:"status"`
}

// Metadata is Meta as written in report.json.
type Metadata struct {
	SuiteVersion string `json:"suiteVersion"`
	Commit       string `json:"commit,omitempty"`
	CatalogHash  string `json:"catalogHash,omitempty"`
	BaseURL      string `json:"baseURL,omitempty"`
	// KindBaseURLs are the key kinds the run sent to a base of their own,
	// beside baseURL (added within v1alpha1).
	KindBaseURLs map[string]string `json:"kindBaseURLs,omitempty"`
	// Offers are the feature globs the gateway declared it offers
	// (--offers; added within v1alpha1); absent: every feature.
	Offers   []string  `json:"offers,omitempty"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Strict   bool      `json:"strict"`
	Insecure bool      `json:"insecure,omitempty"`
	// Recording is where run --record kept the whole exchanges (added
	// within v1alpha1).
	Recording string `json:"recording,omitempty"`
	// Replay is set when the run re-judged a recording with no network
	// (run --replay; added within v1alpha1).
	Replay *Replay `json:"replay,omitempty"`
	// Shard is the part of a split run ("1/2"; added within v1alpha1).
	Shard string `json:"shard,omitempty"`
	// Completion says what of the plan has no result, when something has
	// none: an interrupt, a missing shard (added within v1alpha1).
	Completion *results.Completion `json:"completion,omitempty"`
	// ModelMap is the name each spec model was sent as, and how it was
	// found, in spec id order (added within v1alpha1).
	ModelMap []ModelName `json:"modelMap,omitempty"`
	// Traffic is set when the results judge observed traffic rather than
	// a run of the catalog. Added within v1alpha1.
	Traffic *Traffic `json:"traffic,omitempty"`
}

// Traffic is what a judgement of observed traffic covered.
type Traffic struct {
	// Exchanges is how many exchanges were judged.
	Exchanges int `json:"exchanges"`
	// Covered are the spec rows the judgement applied, sorted: the rows
	// the traffic touched (no other row was judged).
	Covered []string `json:"covered"`
	// Bases are the base paths of a routed gateway the judge was told
	// (--base-path): a request under one was judged as that base URL plus
	// the path.
	Bases []string `json:"bases,omitempty"`
	// StandIn says the reference gateway answered (serve --judge without
	// --upstream): the session judged a client, not a gateway.
	StandIn bool `json:"standIn,omitempty"`
}

// Gateway names the gateway judged: its base URL, the stand-in, or
// ReferenceGateway.
func (m Metadata) Gateway() string {
	if m.Traffic != nil && m.Traffic.StandIn {
		return StandIn
	}
	return cmp.Or(m.BaseURL, ReferenceGateway)
}

// ModelLabel is how reports head a spec model's row or column: "gen-5.5 →
// gpt-5.5" where the gateway was sent another id, else the spec id. Cells
// stay keyed by the spec id.
func (m Metadata) ModelLabel(spec string) string {
	for _, n := range m.ModelMap {
		if n.Spec == spec && n.Renamed() {
			return spec + " → " + n.Gateway
		}
	}
	return spec
}

// Counts holds how many results had each status. Every status is a field (not
// a map) so report.json always carries all of them and the schema can require
// them (waived and inconclusive were added within v1alpha1, so older reports
// lack them).
type Counts struct {
	Pass         int `json:"pass"`
	Fail         int `json:"fail"`
	Error        int `json:"error"`
	Skip         int `json:"skip"`
	Unsupported  int `json:"unsupported"`
	Throttled    int `json:"throttled"`
	Inconclusive int `json:"inconclusive"`
	Waived       int `json:"waived"`
	Total        int `json:"total"`
	Flaky        int `json:"flaky"` // passes that needed a retry or a re-run
}

// Add counts one result.
func (c *Counts) Add(r results.Result) {
	switch r.Status {
	case vocab.StatusPass:
		c.Pass++
	case vocab.StatusFail:
		c.Fail++
	case vocab.StatusError:
		c.Error++
	case vocab.StatusSkip:
		c.Skip++
	case vocab.StatusUnsupported:
		c.Unsupported++
	case vocab.StatusThrottled:
		c.Throttled++
	case vocab.StatusInconclusive:
		c.Inconclusive++
	case vocab.StatusWaived:
		c.Waived++
	}
	c.Total++
	if r.Flaky {
		c.Flaky++
	}
}

// Of returns the count for one status.
func (c Counts) Of(s vocab.Status) int {
	switch s {
	case vocab.StatusPass:
		return c.Pass
	case vocab.StatusFail:
		return c.Fail
	case vocab.StatusError:
		return c.Error
	case vocab.StatusSkip:
		return c.Skip
	case vocab.StatusUnsupported:
		return c.Unsupported
	case vocab.StatusThrottled:
		return c.Throttled
	case vocab.StatusInconclusive:
		return c.Inconclusive
	case vocab.StatusWaived:
		return c.Waived
	}
	return 0
}

// CellStatus is the aggregate of one model × feature.
type CellStatus string

// Cell statuses. They reuse the result status names, plus CellNone for a
// feature with no case for that model ("—": the feature does not apply).
const (
	CellPass      CellStatus = "pass"
	CellFail      CellStatus = "fail"
	CellError     CellStatus = "error"
	CellThrottled CellStatus = "throttled"
	// CellInconclusive: refusals whose control was not served; the feature
	// is not known to work (an endpoint refusing everything shows here).
	CellInconclusive CellStatus = "inconclusive"
	CellWaived       CellStatus = "waived"
	CellUnsupported  CellStatus = "unsupported"
	CellSkip         CellStatus = "skip"
	// CellNotOffered: the gateway declares it does not offer the feature
	// (--offers); nothing was sent.
	CellNotOffered CellStatus = "not-offered"
	CellNone       CellStatus = "none"
)

// Cell aggregates one model's cases of one feature.
type Cell struct {
	Model   string     `json:"model"`
	Feature string     `json:"feature"`
	Status  CellStatus `json:"status"`
	// Label is the short text of the cell: "pass", "fail 3/5" (3 of the 5
	// cases run passed: the count means the same in every cell), "skip", "—".
	Label string `json:"label"`
	// Bad counts the results of the worst status (fail counts fail+error):
	// a label shows "k/n" when some are bad, k the results that passed
	// (Counts.Pass) of the Run that ran (everything but skip).
	Bad int `json:"bad"`
	Run int `json:"run"`
	// Blocking is true when a result of the cell fails the run (Result.Counts
	// and Result.Failed): a strict-tier fail without --strict is red but not
	// blocking, and reports show the two apart.
	Blocking bool   `json:"blocking"`
	Counts   Counts `json:"counts"`
}

// TierTotal counts the results of one tier.
type TierTotal struct {
	Tier   vocab.Tier `json:"tier"`
	Counts Counts     `json:"counts"`
	// Decides says whether this tier's failures decide the exit code.
	Decides bool `json:"decides"`
}

// Report is the content of report.json: what report.Build makes of a run
// and every writer renders.
type Report struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	// Verdict is the run's outcome (results.Judge, the exit code's rule in
	// DESIGN.md): pass, fail or incomplete. Headline says it in one line and
	// Notes list what was not checked (a key not set or rejected, throttling).
	Verdict  string      `json:"verdict"`
	Headline string      `json:"headline"`
	Notes    []string    `json:"notes"`
	Models   []string    `json:"models"`
	Features []string    `json:"features"`
	Cells    []Cell      `json:"cells"` // Models × Features, row-major
	Totals   []TierTotal `json:"totals"`
	Total    Counts      `json:"total"`
	// Capabilities is the capability map of the explore tier: per explore
	// feature with parameterised cases, each model's verdict on each
	// parameter value (package capability). Empty when no result carries Params.
	Capabilities []Capability `json:"capabilities"`
	// Cost is what the run planned and spent (added within v1alpha1).
	Cost Cost `json:"cost"`
	// Waivers lists the --waivers entries the results matched, by what they
	// did: waived failures, no longer needed, expired (added within v1alpha1).
	Waivers []WaiverUse `json:"waivers"`
	// UncoveredModels are the models the gateway lists, per key, that no
	// case covers (added within v1alpha1).
	UncoveredModels []UncoveredModel `json:"uncoveredModels"`
	// Causes groups the failed results by what the gateway did
	// (results.GroupByCause): those deciding the verdict first, then by
	// size, so a triage reads one line per defect, not per case × model
	// (added within v1alpha1).
	Causes []Cause `json:"causes"`
	// Clients is what each client's requests came to, for observed
	// traffic (results.Clients): requests, those breaking no rule, and
	// breaches and notes by the row they cite (added within v1alpha1).
	Clients []results.ClientSummary `json:"clients,omitempty"`
	// Readiness is, per known client library, whether it will work
	// against the gateway: per feature it uses, from the answer
	// properties it depends on (the table of clients) and the results.
	// Reported, not deciding (--require-clients makes it decide). Absent
	// for observed traffic (added within v1alpha1).
	Readiness []results.ClientReadiness `json:"readiness,omitempty"`
	Results   []results.Result          `json:"results"`
}

// Cause is one cause of failures: every failed result with a reason of
// this cause, of one kind (deciding the verdict or reported only).
type Cause struct {
	// Cause names what the gateway did, the values of one case taken out
	// ("HTTP 404: Route not found"; vocab.Reason.Cause).
	Cause string `json:"cause"`
	// Deciding: the results decide the verdict (verified, negative;
	// strict with --strict). The same cause met by strict or explore
	// results too is another, reported-only entry.
	Deciding bool     `json:"deciding"`
	Results  int      `json:"results"` // failed results with a reason of this cause
	Cells    int      `json:"cells"`   // distinct model × feature cells among them
	Cases    []string `json:"cases"`   // their case ids, sorted
	// Example is the first such result, in report order: the one to
	// look at, and to send again (gwconform show --curl).
	Example CauseExample `json:"example"`
}

// CauseExample names one result of a cause and its reason of that cause.
type CauseExample struct {
	Case   string       `json:"case"`
	Model  string       `json:"model"` // the spec id, as results.jsonl's model
	Reason vocab.Reason `json:"reason"`
}

// Cell returns the cell of model × feature, and false when the report has no
// such row or column.
func (r *Report) Cell(model, feature string) (Cell, bool) {
	mi := slices.Index(r.Models, model)
	fi := slices.Index(r.Features, feature)
	if mi < 0 || fi < 0 || mi*len(r.Features)+fi >= len(r.Cells) {
		return Cell{}, false
	}
	return r.Cells[mi*len(r.Features)+fi], true
}

// ResultsOf returns the results of one cell, in report order.
func (r *Report) ResultsOf(model, feature string) []results.Result {
	var out []results.Result
	for _, res := range r.Results {
		if res.Model == model && res.Feature == feature {
			out = append(out, res)
		}
	}
	return out
}
