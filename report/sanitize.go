package report

import (
	"maps"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/gwconform/gwconform/conformance/results"
)

// The runner already redacts requests (results.Request) and never records a
// key. The report redacts again because it is the artefact that gets
// published: a gateway that echoes the Authorization header into an error
// message, or a future runner bug, must not put a key on a public CI page.
// This is defence in depth, by pattern, not a substitute for the runner's
// redaction of the exact key values.
var (
	// key=value, "api_key": "value", x-api-key: value, authorization: value;
	// an auth scheme word is kept: "Authorization: Bearer [redacted]".
	namedSecretRE = regexp.MustCompile(`(?i)\b(x-api-key|api[_-]?key|access[_-]?token|authorization|token)(["']?\s*[:=]\s*["']?)((?:bearer|basic)\s+)?([^\s"'&,;}\]]{4,})`)
	// "Bearer <token>" anywhere (headers echoed in bodies or messages).
	bearerRE = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=\-]{4,})`)
	// Provider-style secret keys: sk-..., sk_live_... (long enough to not be a word).
	skRE = regexp.MustCompile(`\b(sk[-_])([A-Za-z0-9_\-]{12,})`)
)

const redacted = "[redacted]"

// redact replaces anything that looks like a credential in s. It is
// idempotent: text the runner already redacted ("[redacted]") stays as is.
func redact(s string) string {
	s = namedSecretRE.ReplaceAllStringFunc(s, func(m string) string {
		p := namedSecretRE.FindStringSubmatch(m)
		val := p[4]
		if strings.HasPrefix(val, "[redacted") {
			return m
		}
		if p[3] == "" && (strings.EqualFold(val, "bearer") || strings.EqualFold(val, "basic")) {
			return m // a scheme alone, its token is handled by bearerRE
		}
		return p[1] + p[2] + p[3] + redacted
	})
	s = bearerRE.ReplaceAllString(s, "${1}${2}"+redacted)
	s = skRE.ReplaceAllString(s, "${1}"+redacted)
	return s
}

// maxBody bounds a request body in the report: the runner truncates already,
// this keeps a report readable if a runner does not.
const maxBody = 4096

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (truncated)"
}

// thumbRE accepts only base64 image data URLs for thumbnails: the HTML report
// puts them in <img src>, and nothing else (javascript:, http:) may get there.
var thumbRE = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$`)

// sanitizeResult returns a copy of r safe to publish: credentials redacted in
// every gateway-derived string, body truncated, thumbnails checked. Slices are
// copied so the caller's result is untouched.
func sanitizeResult(r results.Result) results.Result {
	if r.Reasons == nil {
		r.Reasons = []results.Reason{}
	} else {
		rs := make([]results.Reason, len(r.Reasons))
		for i, x := range r.Reasons {
			rs[i] = results.Reason{
				Check:    redact(x.Check),
				Where:    redact(x.Where),
				Expected: redact(x.Expected),
				Actual:   redact(x.Actual),
				Message:  redact(x.Message),
			}
		}
		r.Reasons = rs
	}
	if r.Request != nil {
		q := *r.Request
		q.Path = redact(q.Path)
		q.Body = truncate(redact(q.Body), maxBody)
		r.Request = &q
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
		return redact(s)
	}
	u.User = nil
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	u.RawFragment = ""
	return redact(u.String())
}
