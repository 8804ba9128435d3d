package results

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Readiness tells, per client library of the table of clients
// (cases/clients/clients.yaml), whether it will work against the gateway a
// run judged: each answer property the library depends on is held against
// the results of the check of the catalog it is tied to. The reports carry
// it (report.json's readiness); go test and run --require-clients let the
// named libraries decide.

// Readiness is whether a client library will work against the gateway,
// from a run's results and the table of clients (report/readiness).
type Readiness string

const (
	// ReadyYes: every answer property the library depends on was
	// checked and holds.
	ReadyYes Readiness = "ready"
	// ReadyLimited: a feature it uses, or a use of one beyond its basic
	// path, fails; its basic path works.
	ReadyLimited Readiness = "limited"
	// ReadyNot: a property its basic path needs fails.
	ReadyNot Readiness = "not-ready"
	// ReadyUnknown: nothing it depends on fails, but a property was not
	// checked (a tier not run, a key not set).
	ReadyUnknown Readiness = "unknown"
)

// Label is the verdict as reports print it: READY, LIMITED, NOT READY,
// UNKNOWN.
func (r Readiness) Label() string {
	switch r {
	case ReadyYes:
		return "READY"
	case ReadyLimited:
		return "LIMITED"
	case ReadyNot:
		return "NOT READY"
	}
	return "UNKNOWN"
}

// Fails says whether the verdict breaks a promise to the library's users
// (--require-clients): NOT READY or LIMITED.
func (r Readiness) Fails() bool { return r == ReadyNot || r == ReadyLimited }

// ClientReadiness is one library's readiness (added within v1alpha1).
type ClientReadiness struct {
	Client  string    `json:"client"`  // the table's id (openai-go)
	Package string    `json:"package"` // what a developer installs
	Verdict Readiness `json:"verdict"`
	// Because says why, one line per need that decides the verdict: the
	// feature, the check that failed or was not made, and the library's
	// dependency with its source. Empty when READY.
	Because  []string           `json:"because"`
	Features []FeatureReadiness `json:"features"`
}

// FeatureReadiness is one library × feature.
type FeatureReadiness struct {
	Feature  string      `json:"feature"`
	Endpoint string      `json:"endpoint"`
	Basic    bool        `json:"basic"` // the library's basic path
	Verdict  Readiness   `json:"verdict"`
	Needs    []NeedState `json:"needs"`
}

// The states of a need in a run.
const (
	NeedHolds     = "holds"
	NeedFails     = "fails"
	NeedUnchecked = "unchecked"
)

// NeedState is what a run showed of one property a library depends on.
type NeedState struct {
	Property string `json:"property"`
	Basic    bool   `json:"basic"`
	// Check is the check of the catalog that holds it: a case, narrowed
	// to one check of its reasons or one stream rule
	// ("chat-stream-strict rule chat.error-member"), and its tier.
	Check      string `json:"check"`
	Tier       string `json:"tier"`
	BeyondSpec bool   `json:"beyondSpec,omitempty"`
	State      string `json:"state"` // holds, fails, unchecked
	// Said is, for a need that fails, the failing result's model and
	// reason; for one unchecked, why it was not checked.
	Said string `json:"said,omitempty"`
	// Source is where the library depends on it: repository, file,
	// function, versions, and "source only, not yet driven" unless a
	// drive confirmed it.
	Source string `json:"source"`
	Driven bool   `json:"driven"`
}

// ReadinessRows is the readiness of each library of the table with uses whose id
// matches one of globs (all of them when there is none), in the table's
// order, from the results of a run of the catalog.
func ReadinessRows(table *catalog.Clients, globs []string, rs []Result) []ClientReadiness {
	byCase := map[string][]Result{}
	for _, r := range rs {
		if !r.Observed {
			byCase[r.Case] = append(byCase[r.Case], r)
		}
	}
	out := []ClientReadiness{}
	for _, c := range table.Entries {
		if len(c.Uses) == 0 || !ClientSelected(c.ID, globs) {
			continue
		}
		out = append(out, clientReadiness(c, byCase))
	}
	return out
}

// EmbeddedReadiness is ReadinessRows with the table of clients the
// catalog embeds: what the reports, the console and go test show.
func EmbeddedReadiness(globs []string, rs []Result) ([]ClientReadiness, error) {
	table, err := catalog.EmbeddedClients()
	if err != nil {
		return nil, err
	}
	return ReadinessRows(table, globs, rs), nil
}

// ModelReadiness is the readiness of each library for one model (a probed
// one), from that model's results: each library's uses cut to the
// features the model's cases cover (a messages model speaks for the
// messages features of a library, not its chat ones); a library left with
// none is left out.
func ModelReadiness(table *catalog.Clients, globs []string, model string, rs []Result) []ClientReadiness {
	var own []Result
	covered := map[string]bool{}
	for _, r := range rs {
		if r.Model == model {
			own = append(own, r)
			covered[r.Feature] = true
		}
	}
	cut := &catalog.Clients{}
	for _, c := range table.Entries {
		var uses []catalog.Use
		for _, u := range c.Uses {
			if covered[u.Feature] {
				uses = append(uses, u)
			}
		}
		if len(uses) > 0 {
			c.Uses = uses
			cut.Entries = append(cut.Entries, c)
		}
	}
	return ReadinessRows(cut, globs, own)
}

// ClientSelected says whether a library's id matches one of globs, or there is
// none.
func ClientSelected(id string, globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	return slices.ContainsFunc(globs, func(g string) bool {
		ok, _ := path.Match(g, id)
		return ok
	})
}

// clientReadiness is one library's readiness: NOT READY when a need of its basic
// path fails (a basic need of a basic feature), LIMITED when another need
// fails, UNKNOWN when none fails but one was not checked, else READY.
func clientReadiness(c catalog.Client, byCase map[string][]Result) ClientReadiness {
	row := ClientReadiness{Client: c.ID, Package: c.Package, Verdict: ReadyYes, Because: []string{}}
	var limited, unknown []string
	for _, u := range c.Uses {
		f := featureReadiness(u, byCase)
		row.Features = append(row.Features, f)
		for _, n := range f.Needs {
			line := fmt.Sprintf("%s: %s %s: %s; %s needs it: %s (%s)", u.Feature, n.Check, n.State, n.Said, c.ID, n.Property, n.Source)
			switch needVerdict(n.State, n.Basic && u.Basic) {
			case ReadyNot:
				row.Verdict = ReadyNot
				row.Because = append(row.Because, line)
			case ReadyLimited:
				limited = append(limited, line)
			case ReadyUnknown:
				unknown = append(unknown, line)
			}
		}
	}
	switch {
	case row.Verdict == ReadyNot:
		row.Because = append(row.Because, limited...)
	case len(limited) > 0:
		row.Verdict, row.Because = ReadyLimited, limited
	case len(unknown) > 0:
		row.Verdict, row.Because = ReadyUnknown, unknown
	}
	return row
}

// featureReadiness is one library × feature: NOT READY when a basic need fails,
// LIMITED when another one does, UNKNOWN when one was not checked.
func featureReadiness(u catalog.Use, byCase map[string][]Result) FeatureReadiness {
	f := FeatureReadiness{Feature: u.Feature, Endpoint: u.Endpoint, Basic: u.Basic, Verdict: ReadyYes}
	for _, n := range u.Needs {
		s := needState(n, byCase[n.Case])
		f.Needs = append(f.Needs, s)
		if v := needVerdict(s.State, n.Basic); readinessRank[v] > readinessRank[f.Verdict] {
			f.Verdict = v
		}
	}
	return f
}

// needVerdict is what a need's state makes of a path it is basic to or
// not: a basic need failing is NOT READY, another LIMITED, one unchecked
// UNKNOWN.
func needVerdict(state string, basic bool) Readiness {
	switch {
	case state == NeedFails && basic:
		return ReadyNot
	case state == NeedFails:
		return ReadyLimited
	case state == NeedUnchecked:
		return ReadyUnknown
	}
	return ReadyYes
}

// readinessRank orders the verdicts from best to worst.
var readinessRank = map[Readiness]int{ReadyYes: 0, ReadyUnknown: 1, ReadyLimited: 2, ReadyNot: 3}

// needState holds one need against the results of its case (one per model):
// it fails when one of them failed for the need's reason, and is
// unchecked when none was judged, or every failure came before the
// need's check was reached (a status or transport failure before a
// stream rule).
func needState(n catalog.Need, rs []Result) NeedState {
	s := NeedState{Property: n.Property, Basic: n.Basic, Check: n.Cites(), Tier: string(n.Tier()),
		BeyondSpec: n.BeyondSpec, Source: n.Source.Where(), Driven: n.Source.Driven != ""}
	if len(rs) == 0 {
		s.State, s.Said = NeedUnchecked, fmt.Sprintf("case %s (%s tier) is not in this run", n.Case, n.Tier())
		return s
	}
	var held bool
	var unchecked string
	for _, r := range rs {
		switch state, said := judgeNeed(n, r); state {
		case NeedFails:
			s.State, s.Said = state, said
			return s
		case NeedHolds:
			held = true
		default:
			if unchecked == "" {
				unchecked = said
			}
		}
	}
	if held {
		s.State = NeedHolds
		return s
	}
	s.State, s.Said = NeedUnchecked, unchecked
	return s
}

// judgeNeed holds a need against one result of its case.
func judgeNeed(n catalog.Need, r Result) (state, said string) {
	on := r.Case + " × " + r.Model + ": "
	switch {
	case r.Cancelled:
		return NeedUnchecked, on + "cut short by the interrupt"
	case r.Status == vocab.StatusPass:
		return NeedHolds, ""
	case r.Status != vocab.StatusFail && r.Status != vocab.StatusWaived && r.Status != vocab.StatusUnsupported:
		return NeedUnchecked, on + string(r.Status) + " " + r.FirstReason()
	}
	for _, reason := range r.Reasons {
		if n.Matches(reason) {
			return NeedFails, on + reason.String()
		}
	}
	if !n.Narrowed() {
		return NeedFails, on + string(r.Status) + " " + r.FirstReason()
	}
	for _, reason := range r.Reasons {
		if stage(reason.Check) < stage(needCheck(n)) {
			return NeedUnchecked, on + "not judged: " + reason.String()
		}
	}
	return NeedHolds, ""
}

// needCheck is the check a need reads: its own, sse for a stream rule,
// or none in particular (a need narrowed by its reason alone).
func needCheck(n catalog.Need) string {
	if n.Check == "" && n.Rule != "" {
		return "sse"
	}
	return n.Check
}

// stage orders the checks as an answer is judged: a failure of an
// earlier stage (no answer, a wrong status) leaves the later ones
// unjudged. A wrong Content-Type leaves none: a JSON body is read as
// JSON, and a stream as a stream, whatever it says.
func stage(check string) int {
	switch check {
	case "transport":
		return 0
	case "status":
		return 1
	}
	return 2
}

// FeatureLine is a row's features and their verdicts on one line:
// "chat.basic* NOT READY, chat.stream READY"; a feature of the library's
// basic path is marked with *.
func (row ClientReadiness) FeatureLine() string {
	var b strings.Builder
	for i, f := range row.Features {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Feature)
		if f.Basic {
			b.WriteString("*")
		}
		b.WriteString(" " + f.Verdict.Label())
	}
	return b.String()
}

// CheckClientNames refuses, before a run, a --clients glob that matches no
// library of the table and a --require-clients name that is none, with a
// did-you-mean.
func CheckClientNames(table *catalog.Clients, globs, required []string) error {
	var ids []string
	for _, c := range table.Entries {
		if len(c.Uses) > 0 {
			ids = append(ids, c.ID)
		}
	}
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("--clients %q: %w", g, err)
		}
		if !slices.ContainsFunc(ids, func(id string) bool { return ClientSelected(id, []string{g}) }) {
			return fmt.Errorf("--clients %q matches no client library (%s)%s", g, strings.Join(ids, ", "), catalog.Closest(g, ids))
		}
	}
	for _, name := range required {
		if !slices.Contains(ids, name) {
			return fmt.Errorf("--require-clients %q is no client library (%s)%s", name, strings.Join(ids, ", "), catalog.Closest(name, ids))
		}
	}
	return nil
}

// RequiredFailing are the rows of the required libraries whose readiness
// fails the promise: NOT READY or LIMITED.
func RequiredFailing(rows []ClientReadiness, required []string) []ClientReadiness {
	var out []ClientReadiness
	for _, r := range rows {
		if slices.Contains(required, r.Client) && r.Verdict.Fails() {
			out = append(out, r)
		}
	}
	return out
}
