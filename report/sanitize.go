package report

import (
	"regexp"

	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// maxBody bounds a request body in the report: the runner truncates already,
// this keeps a report readable if a runner does not.
const maxBody = 4096

// thumbRE accepts only base64 image data URLs for thumbnails: the HTML report
// puts them in <img src>, and nothing else (javascript:, http:) may get there.
var thumbRE = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$`)

// maxText bounds each text of a result in the report (a transcript's
// bodies above all): the runner bounds them already (record's limits),
// this keeps one self-contained page bounded if a results file was made
// otherwise.
const maxText = 8 << 10

// sanitizeResult returns a copy of r safe to publish. The runner already
// redacted the exact key values (redact.Result); the report redacts again,
// by pattern, over the same fields (redact.Walk), because it is the
// artefact that gets published: a gateway that echoes a credential the
// runner never knew, or a runner bug, must not put it on a public CI page.
// So: credentials redacted in every text, each text bounded, the request
// body truncated, thumbnails checked. The caller's result is untouched.
func sanitizeResult(r results.Result) results.Result {
	redact.Walk(&r, func(s string) string { return results.Truncate(redact.Credentials(s), maxText) })
	if r.Reasons == nil {
		r.Reasons = []vocab.Reason{}
	}
	if r.Request != nil {
		r.Request.Body = results.Truncate(r.Request.Body, maxBody)
	}
	for i := range r.Images { // Walk copied the slice, and the Params map
		if t := r.Images[i].Thumb; t != "" && !thumbRE.MatchString(t) {
			r.Images[i].Thumb = ""
		}
	}
	return r
}
