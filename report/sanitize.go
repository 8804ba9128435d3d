package report

import (
	"maps"
	"net/url"
	"regexp"
	"strings"

	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/results"
)

// maxBody bounds a request body in the report: the runner truncates already,
// this keeps a report readable if a runner does not.
const maxBody = 4096

// thumbRE accepts only base64 image data URLs for thumbnails: the HTML report
// puts them in <img src>, and nothing else (javascript:, http:) may get there.
var thumbRE = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$`)

// sanitizeResult returns a copy of r safe to publish. The runner already
// redacted the exact key values (redact.Secrets); the report redacts again,
// by pattern, because it is the artefact that gets published: a gateway that
// echoes a credential the runner never knew, or a runner bug, must not put
// it on a public CI page. So: credentials redacted in
// every gateway-derived string, body truncated, thumbnails checked. Slices are
// copied so the caller's result is untouched.
func sanitizeResult(r results.Result) results.Result {
	if r.Reasons == nil {
		r.Reasons = []results.Reason{}
	} else {
		rs := make([]results.Reason, len(r.Reasons))
		for i, x := range r.Reasons {
			rs[i] = results.Reason{
				Check:    redact.Credentials(x.Check),
				Where:    redact.Credentials(x.Where),
				Expected: redact.Credentials(x.Expected),
				Actual:   redact.Credentials(x.Actual),
				Message:  redact.Credentials(x.Message),
			}
		}
		r.Reasons = rs
	}
	if r.Request != nil {
		q := *r.Request
		q.Path = redact.Credentials(q.Path)
		q.Body = results.Truncate(redact.Credentials(q.Body), maxBody)
		r.Request = &q
	}
	r.RequestID = redact.Credentials(r.RequestID)
	if r.Transcript != nil {
		r.Transcript = sanitizeTranscript(*r.Transcript)
	}
	if r.Images != nil {
		imgs := make([]results.ImageInfo, len(r.Images))
		for i, im := range r.Images {
			if im.Thumb != "" && !thumbRE.MatchString(im.Thumb) {
				im.Thumb = ""
			}
			imgs[i] = im
		}
		r.Images = imgs
	}
	if r.EventTypes != nil {
		r.EventTypes = append([]string(nil), r.EventTypes...)
	}
	if r.Params != nil {
		r.Params = maps.Clone(r.Params)
	}
	return r
}

// maxTranscriptText bounds each text of a transcript in the report: the
// runner bounds them already (record's limits), this keeps one self-
// contained page bounded if a results file was made otherwise.
const maxTranscriptText = 8 << 10

// sanitizeTranscript returns a copy of a transcript with credentials
// redacted by pattern in everything the gateway or the request carried,
// and each text bounded.
func sanitizeTranscript(t results.Transcript) *results.Transcript {
	clean := func(s string) string { return results.Truncate(redact.Credentials(s), maxTranscriptText) }
	lines := func(ls []string) []string {
		if ls == nil {
			return nil
		}
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = clean(l)
		}
		return out
	}
	t.Exchange = clean(t.Exchange)
	rounds := make([]results.TranscriptRound, len(t.Rounds))
	for i, tr := range t.Rounds {
		tr.Path, tr.RequestBody, tr.ResponseBody, tr.Error = clean(tr.Path), clean(tr.RequestBody), clean(tr.ResponseBody), clean(tr.Error)
		tr.RequestHeader, tr.ResponseHeader = lines(tr.RequestHeader), lines(tr.ResponseHeader)
		if tr.Events != nil {
			evs := make([]results.TranscriptEvent, len(tr.Events))
			for j, ev := range tr.Events {
				evs[j] = results.TranscriptEvent{OffsetMS: ev.OffsetMS, Text: clean(ev.Text)}
			}
			tr.Events = evs
		}
		rounds[i] = tr
	}
	t.Rounds = rounds
	return &t
}

// sanitizeBaseURL drops userinfo, query and fragment: the only places a URL
// can carry a credential.
func sanitizeBaseURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		// Unparseable: keep only what precedes any '?', '#' or '@'-prefixed part.
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
		if i := strings.LastIndex(s, "@"); i >= 0 {
			s = s[i+1:]
		}
		return redact.Credentials(s)
	}
	u.User = nil
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	u.RawFragment = ""
	return redact.Credentials(u.String())
}
