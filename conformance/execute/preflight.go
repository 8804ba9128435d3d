package execute

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/modelid"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// A model list the suite asks for outside a case (the preflight's, the
// coverage listing after the cases, probe's) is a request like any other:
// bounded by the run's request timeout (--timeout; spec 8 allows 600 s a
// request), headers and body together, so that a gateway that sends its
// headers and then stalls cannot hold a finished run until a signal comes,
// and a slow list is waited for as a slow answer is.

// slowList is how long a list may take before the console says which
// key's list the run waits for.
const slowList = 5 * time.Second

// modelListLimit caps a model list's body. A gateway's list is a few
// kilobytes; a relay listing every provider's models with their
// descriptions a few megabytes.
const modelListLimit = 16 << 20

// refusalLimit bounds the piece of a refusal's body that an error quotes:
// enough for a relay's message, short enough for one line.
const refusalLimit = 200

// errListTimeout is the cause of a list's own deadline, told apart from the
// caller's (a case's timeout, a signal).
var errListTimeout = errors.New("the model list's own deadline")

// ListTimeoutError is a model list that did not answer within its bound.
type ListTimeoutError struct {
	Base  string
	Limit time.Duration
}

func (e *ListTimeoutError) Error() string {
	return fmt.Sprintf("%s: no answer to GET /v1/models within %s (--timeout)", e.Base, e.Limit)
}

// ListOptions bound the model lists asked outside the cases.
type ListOptions struct {
	// Timeout bounds each list, as --timeout bounds a request (0: the
	// spec's 600 s).
	Timeout time.Duration
	// Slow, when set, is called once for a list that has not answered
	// within a few seconds: the console says which key's list it waits
	// for ("" for the one asked with no key).
	Slow func(kind catalog.KeyKind, limit time.Duration)
}

// limit is the bound of each list.
func (o ListOptions) limit() time.Duration {
	if o.Timeout <= 0 {
		return SpecMaxDuration
	}
	return o.Timeout
}

// Preflight sends one GET /v1/models per configured key the run uses (or
// one without a key when there is none) before a run, outside the plan and the call
// budget. It returns an error when the run cannot start, or would report a
// setup mistake as the gateway's failures:
//   - the gateway cannot be reached, or its certificate is not trusted;
//   - the base URL ends in /v1 and the list is not found there (every path
//     would then carry /v1 twice);
//   - the gateway, or a relay in front of it, refuses the list with a 4xx
//     other than 401, 403, 404, 408 and 429 (a relay's header missing);
//   - a key lists none of the models of its kind's verified cases but some
//     of another kind's: the key given for another.
//
// Otherwise it returns what the lists showed: the key kinds the gateway
// refused (401 or 403), with what it answered, so their cases are skipped
// as "key rejected" rather than failed one by one; and the gateway's names
// for the spec's ids, read from each key's list (plan.ResolveNames), with
// t.Names.Given over them. Any other answer (a 404 on a base without /v1,
// a throttled list, a 5xx, a list that cannot be read, one that does not
// answer within o's bound) is left to the cases: its key's models are not
// sent unless --model-map names them (plan.ModelNames.Unchecked), and the
// other keys' cases run.
func Preflight(ctx context.Context, cat *catalog.Catalog, t plan.Target, used []catalog.KeyKind, o ListOptions) (Lists, error) {
	found := Lists{Rejected: map[catalog.KeyKind]string{}, Names: t.Names}
	if !modelsOffered(cat, t) {
		return found, nil // no model list is asked of a gateway that declares none
	}
	verified := verifiedModels(cat)
	lists := map[catalog.KeyKind]plan.KeyList{}
	kinds := preflightKinds(t, used)
	notFound := 0
	for _, kind := range kinds {
		status, body, err := getModelList(ctx, t, kind, o)
		if status == http.StatusNotFound {
			notFound++
		}
		var slow *ListTimeoutError
		switch {
		case status == 0 && kind != "" && errors.As(err, &slow):
			lists[kind] = keyList(status, nil, err)
		case status == 0:
			return Lists{}, err
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			found.Rejected[kind] = fmt.Sprintf("GET /v1/models with the %s key answered %d", kind, status)
		default:
			if err := setupMistake(t, kind, status, body, err, verified); err != nil {
				return Lists{}, err
			}
			if kind != "" {
				lists[kind] = keyList(status, body, err)
			}
		}
	}
	if notFound == len(kinds) && kinds[0] != "" {
		if err := baseNotFound(ctx, cat, t, kinds, o); err != nil {
			return Lists{}, err
		}
	}
	found.Names = plan.ResolveNames(cat, lists, t.Names.Given)
	return found, nil
}

// baseNotFound asks, when every key's list answered 404, whether anything
// at the base is this API: each path the kinds' verified cases send to is
// sent an empty JSON object (no model, nothing spent; the spec answers it
// 400 where it states it). When every one answers 404 too, the address is
// wrong, and the run would report hundreds of 404s as the gateway's: it
// does not start. Any other answer is a gateway: its cases say the rest.
func baseNotFound(ctx context.Context, cat *catalog.Catalog, t plan.Target, kinds []catalog.KeyKind, o ListOptions) error {
	var asked []string
	for _, kind := range kinds {
		for _, path := range verifiedPaths(cat, kind) {
			actx, cancel := context.WithTimeout(ctx, o.limit())
			resp, err := sendBare(actx, t, kind, http.MethodPost, path)
			if err == nil {
				discard(resp)
			}
			cancel()
			if err != nil || resp.StatusCode != http.StatusNotFound {
				return nil
			}
			if !slices.Contains(asked, path) {
				asked = append(asked, path)
			}
		}
	}
	if len(asked) == 0 {
		return nil
	}
	return fmt.Errorf("nothing at this address answers as the Model-Gateway API: every key's GET /v1/models and POST %s answered 404: check the base URL (%s; the gateway's whole address, a path prefix included)",
		strings.Join(asked, ", POST "), redact.BaseURL(t.BaseURL))
}

// verifiedPaths are the paths of a kind's verified cases other than the
// model list, in catalog order.
func verifiedPaths(cat *catalog.Catalog, kind catalog.KeyKind) []string {
	var out []string
	for _, cs := range cat.Cases {
		p := cs.Request.Path
		if cs.Tier == vocab.TierVerified && cs.Key == kind && cs.Request.Method == http.MethodPost && !strings.Contains(p, "{{") && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Lists is what the preflight's model lists showed.
type Lists struct {
	// Rejected are the key kinds the gateway refused, with what it answered.
	Rejected map[catalog.KeyKind]string
	// Names are the gateway's names for the spec's ids.
	Names plan.ModelNames
}

// keyList reads a key's answered list for name resolution: its ids, or why
// they cannot be had.
func keyList(status int, body []byte, readErr error) plan.KeyList {
	var slow *ListTimeoutError
	switch {
	case errors.As(readErr, &slow):
		return plan.KeyList{Unread: fmt.Sprintf("no answer within %s (--timeout)", slow.Limit)}
	case readErr != nil:
		return plan.KeyList{Unread: readErr.Error()}
	case status/100 != 2:
		return plan.KeyList{Unread: fmt.Sprintf("HTTP %d", status)}
	}
	ids, err := modelIDs(body)
	if err != nil {
		return plan.KeyList{Unread: "not a model list: " + err.Error()}
	}
	return plan.KeyList{IDs: ids}
}

// modelsOffered reports whether the gateway offers the model list: it
// declares no offer, or one that takes some models.* feature (--offers).
func modelsOffered(cat *catalog.Catalog, t plan.Target) bool {
	return len(t.Offers) == 0 || slices.ContainsFunc(cat.Cases, func(cs catalog.Case) bool {
		return strings.HasPrefix(cs.Feature, "models.") && t.Offered(cs.Feature)
	})
}

// preflightKinds are the key kinds configured that the run uses (used;
// nil: every kind), or "" (no such key: the gateway's reachability only).
func preflightKinds(t plan.Target, used []catalog.KeyKind) []catalog.KeyKind {
	var kinds []catalog.KeyKind
	for _, k := range catalog.KeyKinds {
		if t.Keys[k] != "" && (used == nil || slices.Contains(used, k)) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		kinds = []catalog.KeyKind{""}
	}
	return kinds
}

// setupMistake names the setup mistake a model list's answer shows, if
// any (see Preflight); readErr is why its body could not be read.
func setupMistake(t plan.Target, kind catalog.KeyKind, status int, body []byte, readErr error, verified map[catalog.KeyKind]map[string]bool) error {
	switch {
	case status == http.StatusNotFound && endsInV1(t.BaseFor(kind)):
		return fmt.Errorf("the base URL should not end in /v1 (GET %s/v1/models answered 404): give the address without it", t.BaseFor(kind))
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout:
		// "Try again later" is no setup mistake: the cases meet the
		// throttling too, and the verdict says what it left unverified.
		return nil
	case status >= 400 && status < 500 && status != http.StatusNotFound:
		return refused(t, kind, status, body)
	case status/100 == 2 && readErr == nil && kind != "":
		if ids, err := modelIDs(body); err == nil {
			return wrongKind(verified, kind, ids)
		}
	}
	return nil
}

// getModelList sends GET /v1/models with the headers and key of a kind and
// reads the answer within o's bound. status is the answer's whenever one
// came, even when its body could not be read (err then says why): a status
// alone can name a setup mistake.
func getModelList(ctx context.Context, t plan.Target, kind catalog.KeyKind, o ListOptions) (status int, body []byte, err error) {
	limit := o.limit()
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errListTimeout)
	defer cancel()
	if o.Slow != nil {
		slow := time.AfterFunc(slowList, func() { o.Slow(kind, limit) })
		defer slow.Stop()
	}
	resp, err := getModels(ctx, t, kind)
	if err != nil {
		if ended := listEnded(ctx, t.BaseFor(kind), limit); ended != nil {
			return 0, nil, ended
		}
		return 0, nil, unreachable(t.BaseFor(kind), err)
	}
	defer resp.Body.Close()
	body, err = check.ReadBody(resp.Body, modelListLimit)
	if err != nil {
		if ended := listEnded(ctx, t.BaseFor(kind), limit); ended != nil {
			return resp.StatusCode, nil, ended
		}
		return resp.StatusCode, nil, fmt.Errorf("%s: reading the answer to GET /v1/models: %w", t.BaseFor(kind), err)
	}
	return resp.StatusCode, body, nil
}

// listEnded explains a list cut by its context, or returns nil when the
// context is live: the list's own bound is named as such, the caller's
// deadline or a signal is passed on as it is.
func listEnded(ctx context.Context, base string, limit time.Duration) error {
	switch {
	case ctx.Err() == nil:
		return nil
	case errors.Is(context.Cause(ctx), errListTimeout):
		return &ListTimeoutError{Base: base, Limit: limit}
	}
	return fmt.Errorf("%s: GET /v1/models: %w", base, ctx.Err())
}

// modelIDs reads the ids of a model list (spec 4.1).
func modelIDs(body []byte) ([]string, error) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// endsInV1 reports whether the base URL's path ends in /v1: the address of
// the API's version rather than of the gateway, to which every request path
// adds /v1 again.
func endsInV1(base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1")
}

// refused explains a 4xx refusal of the list with the body's message: a
// relay's missing header or a proxy's demand for credentials says there
// what it wants. The message is one bounded line, and keeps no secret: a
// relay may echo the headers it was sent.
func refused(t plan.Target, kind catalog.KeyKind, status int, body []byte) error {
	msg := string(body)
	if gjson.ValidBytes(body) {
		if m := gjson.GetBytes(body, "error.message"); m.Type == gjson.String {
			msg = m.String()
		} else if m := gjson.GetBytes(body, "error"); m.Type == gjson.String {
			msg = m.String()
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	what := "with no key"
	if kind != "" {
		what = "with the " + string(kind) + " key"
	}
	line := fmt.Sprintf("GET %s/v1/models %s answered %d %s", t.BaseFor(kind), what, status, http.StatusText(status))
	if msg != "" {
		line += ": " + results.Truncate(msg, refusalLimit)
	}
	return errors.New(redact.Secrets(line, t.Secrets()))
}

// verifiedModels maps each key kind to the models its verified cases name.
// Other tiers are left out: a negative case sends a text key to an image
// model on purpose.
func verifiedModels(cat *catalog.Catalog) map[catalog.KeyKind]map[string]bool {
	out := map[catalog.KeyKind]map[string]bool{}
	for _, c := range cat.Cases {
		if c.Tier != vocab.TierVerified {
			continue
		}
		if out[c.Key] == nil {
			out[c.Key] = map[string]bool{}
		}
		for _, m := range c.Models {
			out[c.Key][m] = true
		}
	}
	return out
}

// wrongKind refuses a key that lists none of its kind's verified models but
// some of another kind's, under any name (modelid.Names): the key given
// for another, whose cases would all fail as the gateway's fault. A list of models the catalog does not know
// says nothing of the key (probe is there for those), and a kind without
// verified cases has nothing to compare with.
func wrongKind(verified map[catalog.KeyKind]map[string]bool, kind catalog.KeyKind, ids []string) error {
	own := verified[kind]
	if len(own) == 0 {
		return nil
	}
	for _, id := range ids {
		if namesAny(own, id) {
			return nil
		}
	}
	for _, other := range catalog.KeyKinds {
		if other == kind {
			continue
		}
		var named []string
		for _, id := range ids {
			if namesAny(verified[other], id) {
				named = append(named, id)
			}
		}
		if len(named) > 0 {
			sort.Strings(named)
			if len(named) > 3 {
				named = append(named[:3], "...")
			}
			return fmt.Errorf("the %s key lists %s models (%s): is it the %s key?", kind, other, strings.Join(named, ", "), other)
		}
	}
	return nil
}

// namesAny reports whether a listed id names one of the spec models, in
// the spec's words or the gateway's (modelid.Names).
func namesAny(specs map[string]bool, id string) bool {
	for spec := range specs {
		if _, ok := modelid.Names(spec, id); ok {
			return true
		}
	}
	return false
}

// unreachable explains why no answer came, naming a certificate problem as
// such: "not trusted" is a setup step (--ca-cert), not a network fault.
func unreachable(base string, err error) error {
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknownCA):
		return fmt.Errorf("%s: the gateway's certificate is signed by an authority this machine does not trust (give it with --ca-cert FILE): %w", base, err)
	case errors.As(err, &hostname):
		return fmt.Errorf("%s: the gateway's certificate is not valid for this host name: %w", base, err)
	case errors.As(err, &invalid):
		return fmt.Errorf("%s: the gateway's certificate is invalid (%s): %w", base, invalid.Detail, err)
	case errors.As(err, &verify):
		return fmt.Errorf("%s: the gateway's certificate could not be verified: %w", base, err)
	}
	return fmt.Errorf("%s: cannot reach the gateway: %w", base, err)
}
