package artifact

import (
	"fmt"
	"hash/crc32"
	"time"

	"github.com/vigilhq/vigil/platform/cache"
	"github.com/vigilhq/vigil/stats/forest"
)

// ensembles keeps the tree ensembles parsed last from artifacts, so that
// each explanation of a model does not parse its file again: a 500-tree
// XGBoost model of 8.7 MB takes 175-250 ms to parse, against about 20 ms
// to explain a row by Kernel SHAP. A parsed ensemble is only read (its
// RawRows layout is built once, atomically), so explanations share it.
var ensembles = cache.Cache[string, *forest.Ensemble]{TTL: ensembleTTL, Max: ensembleMax}

// ensembleTTL and ensembleMax bound what ensembles keeps: a model not
// explained for ensembleTTL is parsed again; at most ensembleMax are kept
// (about 5 MB each for the model above).
const (
	ensembleTTL = 10 * time.Minute
	ensembleMax = 8
)

// castagnoli is the CRC-32C table (hardware-assisted on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// parsedEnsemble returns a tree artifact's ensemble, parsed once per
// content (contentKey), so a new upload is parsed anew.
func (a *Artifact) parsedEnsemble() (*forest.Ensemble, error) {
	return ensembles.Get(a.contentKey(), time.Now(), func() (*forest.Ensemble, error) { return ParseEnsemble(a.Kind, []byte(a.Content)) })
}

// contentKey names an uploaded file's content: the organization, model,
// kind, upload time, length and CRC-32C of the file.
func (a *Artifact) contentKey() string {
	return fmt.Sprintf("%s/%s/%s/%d/%d/%08x", a.OrgID, a.ModelID, a.Kind, a.UploadedAt.UnixNano(), len(a.Content),
		crc32.Checksum([]byte(a.Content), castagnoli))
}
