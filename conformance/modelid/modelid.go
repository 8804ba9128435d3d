// Package modelid holds the one rule for how a gateway may spell the model
// it names as "model used" (spec 2.3, 2.4): the JSON checks and the stream
// checks judge a model field the same way.
package modelid

import (
	"regexp"
	"strings"
)

// Spellings describes the spellings Same accepts, for the expected side of
// a reason.
const Spellings = "the id requested, optionally <vendor>/ before it, a snapshot suffix (-MMDD, -YYYYMMDD, -YYYY-MM-DD, @YYYYMMDD) after it, or without the snapshot suffix it was requested with"

// vendorPrefix is a vendor segment before the id (`openai/gen-5.5`).
var vendorPrefix = regexp.MustCompile(`^[A-Za-z0-9-]+/`)

// snapshot is a release date after the id: -MMDD, -YYYYMMDD, -YYYY-MM-DD or
// @YYYYMMDD. Month and day must be calendar-plausible, so a version number
// such as -2024 or -9999 is not read as a date.
var snapshot = regexp.MustCompile(`^(?:-(?:\d{4})?(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])|-\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])|@\d{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))$`)

// Same reports whether got names the model requested: the same id, or the
// same model spelled with a vendor prefix, with a snapshot suffix, or as
// the undated alias of a dated request (msg-haiku-4-5 for
// msg-haiku-4-5-20251001). Any other id is another model; two different
// snapshots of one model are two models.
func Same(requested, got string) bool {
	if requested == "" || got == "" {
		return false
	}
	if got == requested {
		return true
	}
	if p := vendorPrefix.FindString(got); p != "" && len(p) < len(got) {
		got = got[len(p):]
	}
	if got == requested {
		return true
	}
	if rest, ok := strings.CutPrefix(got, requested); ok && snapshot.MatchString(rest) {
		return true
	}
	rest, ok := strings.CutPrefix(requested, got)
	return ok && snapshot.MatchString(rest)
}
