package v1

// The capability map of the explore tier: per explore feature, model,
// parameter and value, the calls with that value by status and how far the
// value is supported.
// Package capability derives it from the results; its doc says how.

// CapSupport is how far one model supports a parameter value. (The JSON
// field keeps its v1alpha1 name, "verdict"; a run's verdict is results.Verdict.)
type CapSupport string

const (
	// CapSupported: every call with the value passed (error and throttled
	// calls say nothing about the gateway and are not counted against it).
	CapSupported CapSupport = "supported"
	// CapUnsupported: every call with the value was declined.
	CapUnsupported CapSupport = "unsupported"
	// CapMixed: some calls passed, some were declined: the value works, but
	// not in every combination (see CapCell.Declined and DeclinedWith).
	CapMixed CapSupport = "mixed"
	// CapFailed: at least one call with the value failed (the gateway broke
	// the contract). Reported; the explore tier never fails a run.
	CapFailed CapSupport = "failed"
	// CapInconclusive: the calls with the value only errored or were
	// throttled.
	CapInconclusive CapSupport = "inconclusive"
	// CapSkip: every call with the value was skipped.
	CapSkip CapSupport = "skip"
	// CapNone: the model made no call with the value.
	CapNone CapSupport = "none"
)

// Capability is the capability map of one explore feature.
type Capability struct {
	Feature string `json:"feature"`
	// Models are the columns: the models with explore calls of the feature, sorted.
	Models []string `json:"models"`
	// Rows are the parameter values, by parameter name, then value (numerically
	// when every value of the parameter is an integer, else in order of first
	// appearance in the report).
	Rows []CapRow `json:"rows"`
	// Summary has one line per model: its calls and the values it declines.
	Summary []CapModel `json:"summary"`
}

// CapRow is one parameter value across the models of a feature.
type CapRow struct {
	Param string `json:"param"`
	Value string `json:"value"`
	// Cells align with Capability.Models.
	Cells []CapCell `json:"cells"`
	// Attention is true when some model does not fully support the value: a
	// verdict other than supported, skip and none, or a mixed cell that is not
	// Explained. matrix.md lists only these rows.
	Attention bool `json:"attention"`
}

// CapCell is one model × parameter value.
type CapCell struct {
	Model   string     `json:"model"`
	Support CapSupport `json:"verdict"`
	// Counts are the calls with the value, by status.
	Counts Counts `json:"counts"`
	// Explained is true for a mixed cell each of whose declined calls also
	// carried a value this model declines in every call, or a declined pair
	// of two other values (CapModel.Pairs).
	Explained bool `json:"explained"`
	// DeclinedWith, for a mixed cell, are the other parameter values
	// ("stream=true") present in every declined call with the value that no
	// unsupported value explains, and in no passing call: the likely reason
	// for the declines. May be empty.
	DeclinedWith []string `json:"declinedWith,omitempty"`
	// Declined are the declined calls of a mixed cell, each with the other
	// parameters of its combination.
	Declined []CapCall `json:"declined,omitempty"`
	// Failed are the calls with the value that failed or errored.
	Failed []CapCall `json:"failed,omitempty"`
}

// CapCall is one explore call: its case and the parameters other than the
// row's own.
type CapCall struct {
	Case   string            `json:"case"`
	Params map[string]string `json:"params"`
	// Because lists what explains the decline: other values of the call that
	// the model declines in every call ("quality=xhigh"), or a declined pair
	// of two other values in it ("n=2 + stream=true").
	Because []string `json:"because,omitempty"`
}

// CapModel sums up one model of a feature.
type CapModel struct {
	Model  string `json:"model"`
	Counts Counts `json:"counts"` // the model's explore calls with parameters
	// Unsupported lists the values ("quality=xhigh") declined in every call.
	Unsupported []string `json:"unsupported"`
	// Mixed lists the values declined in some combinations, not explained by
	// an unsupported value or a declined pair of two other values.
	Mixed []string `json:"mixed"`
	// Pairs lists the declined pairs ("n=2 + stream=true"): two mixed values
	// each declined, apart from unsupported values, always with the other.
	Pairs []string `json:"pairs"`
	// Failed lists the values with a failed call.
	Failed []string `json:"failed"`
}

// ParamValue is "param=value", the way the map names one parameter value
// (CapModel's lists, CapCell.DeclinedWith, CapCall.Because).
func ParamValue(param, value string) string { return param + "=" + value }
