package plan

import (
	"strconv"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/imagecheck"
)

// Cost units estimate what a call costs the key's owner, relative to one
// text call (1 unit). The spec states no prices (section 8: quotas not
// shown), so units compare plans with each other, not with an invoice.
// An image costs by its pixels relative to 1024x1024, scaled by quality; a
// streamed preview costs a fraction of a final image.
var (
	qualityFactor = map[string]float64{"low": 0.25, "medium": 0.5, "high": 1, "xhigh": 1.5, "max": 2, "auto": 1}
	// imageUnit is one 1024x1024 image at high quality.
	imageUnit = 10.0
	// previewShare is a preview's cost as a share of its final image.
	previewShare = 0.2
)

// Cost is the estimate of one call.
type Cost struct {
	Units    float64
	Images   int // final images requested
	Previews int // preview events requested at most
}

// EstimateCost reads the parameters of the case's request (JSON or
// multipart) that drive cost: n, size, quality, stream and partial_images.
func EstimateCost(cs *catalog.Case) Cost {
	if !strings.HasPrefix(cs.Request.Path, "/v1/images/") {
		return Cost{Units: 1}
	}
	n := atoiOr(cs.Request.ParamText("n"), 1)
	w, h := 1254, 1254 // spec 4.4/4.5: an omitted size returns 1254x1254
	switch s := cs.Request.ParamText("size"); s {
	case "":
	case "auto":
		w, h = 1024, 1024
	default:
		if pw, ph, err := imagecheck.ParseSize(s); err == nil {
			w, h = pw, ph
		}
	}
	q, ok := qualityFactor[cs.Request.ParamText("quality")]
	if !ok {
		q = 1
	}
	perImage := imageUnit * float64(w*h) / (1024 * 1024) * q
	c := Cost{Images: n}
	if cs.Request.ParamText("stream") == "true" {
		c.Previews = atoiOr(cs.Request.ParamText("partial_images"), 0) * n
	}
	c.Units = perImage*float64(n) + perImage*previewShare*float64(c.Previews)
	return c
}

func atoiOr(s string, def int) int {
	if v, err := strconv.Atoi(s); err == nil {
		return v
	}
	return def
}
