// Package bucket is the S3-compatible engine of export.Files: generated
// files kept as objects of one bucket under a prefix, through minio-go
// (Signature V4, path-style or virtual-host addressing), so that API
// replicas without a shared folder serve each other's reports.
//
// Its Client and Key also serve the S3 delivery integration
// (export/delivery). It imports export (the Files contract it implements)
// and nothing else of Vigil.
package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/vigilhq/vigil/export"
)

// DefaultRegion is the region signed for when Config names none.
const DefaultRegion = "us-east-1"

// Config says which bucket keeps the files (VIGIL_EXPORT_S3_*).
type Config struct {
	// Endpoint is the store's http or https URL; Bucket must exist;
	// Prefix, when set, is put before every file's name.
	Endpoint, Bucket, Prefix, Region string
	// AccessKeyID and SecretAccessKey sign the requests.
	AccessKeyID, SecretAccessKey string
	// PathStyle addresses the bucket in the path (most self-hosted
	// servers) instead of the host name.
	PathStyle bool
}

// Bucket keeps export files as objects. It contacts the store only when
// a file is put, opened or deleted.
type Bucket struct {
	client         *minio.Client
	bucket, prefix string
}

var _ export.Files = (*Bucket)(nil)

// New is the bucket of c.
func New(c Config) (*Bucket, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("export S3 endpoint %q: want an http or https URL", c.Endpoint)
	}
	if c.Bucket == "" || c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return nil, errors.New("export S3 store: want a bucket, an access key id and a secret access key")
	}
	client, err := Client(u, c.AccessKeyID, c.SecretAccessKey, c.Region, c.PathStyle, nil,
		2) // the runner fails the job: the user asks again
	if err != nil {
		return nil, fmt.Errorf("export S3 store: %w", err)
	}
	return &Bucket{client: client, bucket: c.Bucket, prefix: strings.Trim(c.Prefix, "/")}, nil
}

// Client is a client of the S3-compatible store at u signing with
// Signature V4 for region (DefaultRegion when empty), the bucket named in
// the path when pathStyle, through transport (minio's own when nil),
// trying a failed request up to retries times.
func Client(u *url.URL, accessKeyID, secretAccessKey, region string, pathStyle bool, transport http.RoundTripper, retries int) (*minio.Client, error) {
	if region == "" {
		region = DefaultRegion
	}
	lookup := minio.BucketLookupAuto
	if pathStyle {
		lookup = minio.BucketLookupPath
	}
	return minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(accessKeyID, secretAccessKey, ""),
		Secure:       u.Scheme == "https",
		Region:       region,
		BucketLookup: lookup,
		Transport:    transport,
		MaxRetries:   retries,
	})
}

// Key is the object of the file name under prefix (slashes around the
// prefix ignored; none: the name itself).
func Key(prefix, name string) string {
	if prefix = strings.Trim(prefix, "/"); prefix == "" {
		return name
	}
	return path.Join(prefix, name)
}

// key is the object of the file name.
func (b *Bucket) key(name string) string { return Key(b.prefix, name) }

// Put uploads the file as one object, its MD5 checked by the store: S3
// makes an object visible only once it is whole (a multipart upload cut
// short leaves no object), so no temporary key is needed, and the store
// answers only once it keeps the object.
func (b *Bucket) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	_, err := b.client.PutObject(ctx, b.bucket, b.key(name), r, size, minio.PutObjectOptions{SendContentMd5: true})
	if err != nil {
		return fmt.Errorf("put s3://%s/%s: %w", b.bucket, b.key(name), err)
	}
	return nil
}

// Open reads the object, export.ErrNoFile when there is none.
func (b *Bucket) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	obj, err := b.client.GetObject(ctx, b.bucket, b.key(name), minio.GetObjectOptions{})
	if err == nil {
		_, err = obj.Stat() // the request goes out here
	}
	if err != nil {
		if obj != nil {
			obj.Close()
		}
		if e := minio.ToErrorResponse(err); e.Code == "NoSuchKey" || e.StatusCode == http.StatusNotFound && e.Code != "NoSuchBucket" {
			return nil, fmt.Errorf("%w: s3://%s/%s", export.ErrNoFile, b.bucket, b.key(name))
		}
		return nil, fmt.Errorf("get s3://%s/%s: %w", b.bucket, b.key(name), err)
	}
	return obj, nil
}

// Delete removes the object; S3 answers a missing one as removed.
func (b *Bucket) Delete(ctx context.Context, name string) error {
	if err := b.client.RemoveObject(ctx, b.bucket, b.key(name), minio.RemoveObjectOptions{}); err != nil {
		if minio.ToErrorResponse(err).Code == "NoSuchKey" {
			return nil
		}
		return fmt.Errorf("delete s3://%s/%s: %w", b.bucket, b.key(name), err)
	}
	return nil
}
