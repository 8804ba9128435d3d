package vocab

// Status is the outcome of one case × model.
type Status string

const (
	StatusPass        Status = "pass"        // every expectation held
	StatusFail        Status = "fail"        // the gateway broke the contract
	StatusError       Status = "error"       // the run itself broke (bad fixture, DNS failure, ...)
	StatusSkip        Status = "skip"        // not selected, or a precondition is missing
	StatusUnsupported Status = "unsupported" // explore tier: the gateway declined
	StatusThrottled   Status = "throttled"   // still 429 after waiting --max-wait (Options.MaxWait)
	// StatusWaived is a failure covered by a live entry of --waivers: a
	// known deviation, reported apart with the entry's reason and link,
	// never failing the run.
	StatusWaived Status = "waived"
	// StatusInconclusive is a negative case refused as stated whose control
	// (Settle) was not accepted in the same run: an endpoint that refuses
	// everything refuses the defective request too, so the refusal proves
	// nothing. Not a pass: it makes a run without failures incomplete.
	StatusInconclusive Status = "inconclusive"
)

// Statuses lists every status in the order reports show them.
var Statuses = []Status{StatusPass, StatusFail, StatusError, StatusSkip, StatusUnsupported, StatusThrottled, StatusInconclusive, StatusWaived}
