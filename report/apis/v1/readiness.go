package v1

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
