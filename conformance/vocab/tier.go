package vocab

// Tier says how much weight a case carries.
type Tier string

const (
	// TierVerified cases are rows the spec shows working: they must pass.
	TierVerified Tier = "verified"
	// TierNegative cases are rows of the spec's error table: they must be rejected as stated.
	TierNegative Tier = "negative"
	// TierStrict cases follow from the spec's text (or the official clients) but
	// are not verified rows; they count toward the exit code only with --strict.
	TierStrict Tier = "strict"
	// TierExplore cases discover capabilities and never fail a run.
	TierExplore Tier = "explore"
)

// Tiers lists every tier in the order reports show them.
var Tiers = []Tier{TierVerified, TierNegative, TierStrict, TierExplore}

// Valid reports whether t is one of the four tiers.
func (t Tier) Valid() bool {
	for _, k := range Tiers {
		if t == k {
			return true
		}
	}
	return false
}

// Decides reports whether a tier decides the verdict and the exit code: verified and
// negative always, strict only when strict is set. Explore never.
func (t Tier) Decides(strict bool) bool {
	switch t {
	case TierVerified, TierNegative:
		return true
	case TierStrict:
		return strict
	}
	return false
}
