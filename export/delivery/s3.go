package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/minio/minio-go/v7"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/bucket"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/report"
)

// S3Key is where an export's file goes in an S3 integration's bucket:
// under the integration's prefix, by the export's file name (which holds
// the export's id, so two exports never share a key).
func S3Key(s Settings, j export.Job) string {
	return bucket.Key(s.Prefix, j.Filename())
}

// s3Client is a client of the integration's S3-compatible store signing
// with Signature Version 4, whose every connection passes the guard.
func s3Client(g *outbound.Guard, in Integration, sec Secrets) (*minio.Client, error) {
	u, err := g.CheckURL(in.Settings.Endpoint)
	if err != nil {
		return nil, err
	}
	return bucket.Client(u, sec.AccessKeyID, sec.SecretAccessKey, in.Settings.Region, in.Settings.PathStyle,
		g.Client(sendTimeout).Transport, 1) // the deliverer retries at its next poll
}

// s3 uploads the file to the integration's bucket.
func (d *Deliverer) s3(ctx context.Context, in Integration, j export.Job, file []byte) (string, error) {
	sec, err := Open(d.Box, in)
	if err != nil {
		return "", err
	}
	c, err := s3Client(d.guard(), in, sec)
	if err != nil {
		return "", err
	}
	key := S3Key(in.Settings, j)
	info, err := c.PutObject(ctx, in.Settings.Bucket, key, bytes.NewReader(file), int64(len(file)), minio.PutObjectOptions{
		ContentType:        report.ContentTypes[j.Format],
		ContentDisposition: fmt.Sprintf("attachment; filename=%q", j.Filename()),
		SendContentMd5:     true,
	})
	if err != nil {
		var e minio.ErrorResponse
		if errors.As(err, &e) && (e.StatusCode == http.StatusForbidden || e.Code == "NoSuchBucket" || e.Code == "InvalidAccessKeyId" ||
			e.Code == "SignatureDoesNotMatch") {
			return "", fmt.Errorf("%w: the store refused the upload: %s", errFinal, e.Message)
		}
		return "", fmt.Errorf("upload to s3://%s/%s: %w", in.Settings.Bucket, key, err)
	}
	return fmt.Sprintf("uploaded to s3://%s/%s (%d bytes)", in.Settings.Bucket, key, info.Size), nil
}
