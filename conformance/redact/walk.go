package redact

import (
	"net/url"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Walk applies f to every text of a result: what a request, a gateway, a
// recording, a case file or a waiver file can have put there (reasons and
// first-run reasons, the case's names and sentences, the model, the
// variant, parameters, the waiver, event types, image places, the request
// summary and its curl command, the request id, the transcript). It leaves
// the vocabulary fields (tier, statuses, key kind, dates, image formats,
// hashes and thumbnails, which the report checks by pattern). Every slice it changes is a new
// one, so a caller's copy of the result is left as it was. The runner walks
// with the exact secrets (Result), the report again with the credential
// patterns (the published artefact's second line of defence): one list of
// fields for both.
func Walk(r *results.Result, f func(string) string) {
	reasons := func(rs []vocab.Reason) []vocab.Reason {
		if rs == nil {
			return nil
		}
		out := make([]vocab.Reason, len(rs))
		for i, x := range rs {
			out[i] = vocab.Reason{Check: f(x.Check), Where: f(x.Where), Expected: f(x.Expected), Actual: f(x.Actual), Message: f(x.Message)}
		}
		return out
	}
	texts := func(ss []string) []string {
		if ss == nil {
			return nil
		}
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = f(s)
		}
		return out
	}
	r.Reasons, r.FirstReasons = reasons(r.Reasons), reasons(r.FirstReasons)
	r.Case, r.Feature, r.Spec, r.Requirement = f(r.Case), f(r.Feature), f(r.Spec), f(r.Requirement)
	r.Model, r.GatewayModel, r.Variant, r.RequestID = f(r.Model), f(r.GatewayModel), f(r.Variant), f(r.RequestID)
	if r.Params != nil {
		ps := make(map[string]string, len(r.Params))
		for k, v := range r.Params {
			ps[f(k)] = f(v)
		}
		r.Params = ps
	}
	if r.Waiver != nil {
		w := *r.Waiver
		w.Case, w.Model, w.Reason, w.Link, w.Source = f(w.Case), f(w.Model), f(w.Reason), f(w.Link), f(w.Source)
		r.Waiver = &w
	}
	r.EventTypes, r.Notes, r.Side = texts(r.EventTypes), texts(r.Notes), f(r.Side)
	if r.Images != nil {
		imgs := make([]results.ImageInfo, len(r.Images))
		for i, im := range r.Images {
			im.Where = f(im.Where)
			imgs[i] = im
		}
		r.Images = imgs
	}
	if r.Request != nil {
		q := *r.Request
		q.Method, q.Path, q.Body, q.Curl = f(q.Method), f(q.Path), f(q.Body), f(q.Curl)
		r.Request = &q
	}
	if r.Transcript != nil {
		t := *r.Transcript
		t.Exchange = f(t.Exchange)
		rounds := make([]results.TranscriptRound, len(t.Rounds))
		for i, tr := range t.Rounds {
			tr.Method, tr.Path, tr.RequestBody, tr.ResponseBody, tr.Error = f(tr.Method), f(tr.Path), f(tr.RequestBody), f(tr.ResponseBody), f(tr.Error)
			tr.RequestHeader, tr.ResponseHeader = texts(tr.RequestHeader), texts(tr.ResponseHeader)
			if tr.Events != nil {
				evs := make([]results.TranscriptEvent, len(tr.Events))
				for j, e := range tr.Events {
					e.Text = f(e.Text)
					evs[j] = e
				}
				tr.Events = evs
			}
			rounds[i] = tr
		}
		t.Rounds = rounds
		r.Transcript = &t
	}
}

// BaseURLs scrubs each base URL of a map as BaseURL does, in a copy; nil
// for none.
func BaseURLs(bases map[string]string) map[string]string {
	if len(bases) == 0 {
		return nil
	}
	out := make(map[string]string, len(bases))
	for k, b := range bases {
		out[k] = BaseURL(b)
	}
	return out
}

// BaseURL is a base URL fit to write down: without userinfo, query and
// fragment, the parts of a URL that can carry a credential, and with any
// credential pattern left redacted. One that does not parse keeps what
// precedes any '?' or '#' and follows the last '@'.
func BaseURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
		if i := strings.LastIndex(s, "@"); i >= 0 {
			s = s[i+1:]
		}
		return Credentials(s)
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return Credentials(u.String())
}
