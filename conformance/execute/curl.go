package execute

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
)

// BaseURLVariable stands for the gateway's address in a command that sends
// a request again, where the run's own is not to be written down (the
// in-process gateway's, gone with the run); a kind with a base of its own
// stands for it by its own variable (plan.BaseURLVariables).
func BaseURLVariable(t plan.Target, kind catalog.KeyKind, path string) string {
	base := t.BaseForPath(kind, path)
	for _, k := range append([]catalog.KeyKind{kind}, catalog.KeyKinds...) {
		if b := t.KindBaseURLs[k]; b != "" && b == base {
			return "${" + plan.BaseURLVariables[k] + "}"
		}
	}
	return "${" + plan.BaseURLVariables[""] + "}"
}

// maxCurlBody bounds the body a result's curl command carries inline: a
// JSON edit with its images as data URLs is megabytes, which `gwconform
// show --curl` writes out whole instead.
const maxCurlBody = 4 << 10

// CurlCommand writes a rendered request of a case as a curl command that
// sends it again: to base, with the key as its variable (never its value),
// the headers given ("Name: value"; ${VAR} is left for the shell to read,
// as run reads it), the case's own headers, a JSON body inline, and
// multipart fields as -F with their files written under filesDir (""
// refuses a multipart body).
func CurlCommand(cs *catalog.Case, r *catalog.Rendered, base string, headers []string, filesDir string) (string, error) {
	parts := []string{"curl -sS -i -X " + r.Method, dquote(base + r.Path)}
	switch cs.Request.Auth {
	case catalog.AuthKey:
		parts = append(parts, "-H "+dquote("Authorization: Bearer ${"+plan.KeyVariables[cs.Key]+"}"))
	case catalog.AuthInvalid:
		parts = append(parts, "-H "+shellQuote("Authorization: Bearer gwconform-invalid-key"))
	}
	for _, h := range headers {
		parts = append(parts, "-H "+dquote(h))
	}
	ct := r.Header.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ct)
	for name, vs := range r.Header {
		if name == "Content-Type" && mt == "multipart/form-data" {
			continue // curl writes its own boundary
		}
		for _, v := range vs {
			parts = append(parts, "-H "+shellQuote(name+": "+v))
		}
	}
	switch {
	case mt == "multipart/form-data":
		if filesDir == "" {
			return "", errors.New("a multipart body needs its files written out (gwconform show --curl)")
		}
		fields, err := formFields(r.Body, params["boundary"], filesDir)
		if err != nil {
			return "", err
		}
		parts = append(parts, fields...)
	case len(r.Body) > 0:
		parts = append(parts, "--data-raw "+shellQuote(string(r.Body)))
	}
	return strings.Join(parts, " \\\n  "), nil
}

// resultCurl is the curl command a result carries for its report's case
// panel, with the run's headers: only for a request whose body is small
// and not multipart.
func resultCurl(t plan.Target, cs *catalog.Case, r *catalog.Rendered) string {
	if len(r.Body) > maxCurlBody {
		return ""
	}
	cmd, err := CurlCommand(cs, r, BaseURLVariable(t, cs.Key, r.Path), t.ReplayHeaders(cs.Key, r.Path), "")
	if err != nil {
		return ""
	}
	return cmd
}

// formFields turns a multipart body into curl -F arguments, writing each
// file part under dir.
func formFields(body []byte, boundary, dir string) ([]string, error) {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var out []string
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, err
		}
		if p.FileName() == "" {
			out = append(out, "-F "+shellQuote(p.FormName()+"="+string(data)))
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		file := filepath.Join(dir, filepath.Base(p.FileName()))
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, err
		}
		out = append(out, "-F "+shellQuote(fmt.Sprintf("%s=@%s;type=%s", p.FormName(), abs, p.Header.Get("Content-Type"))))
	}
}

// shellQuote quotes s for a POSIX shell, literally.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dquote quotes s for a POSIX shell in double quotes, so that ${VAR} is
// expanded and nothing else is.
func dquote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", "$(", `\$(`)
	return `"` + r.Replace(s) + `"`
}
