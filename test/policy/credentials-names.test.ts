import { describe, expect, it } from "vitest";
import { isCredentialParam, requestCredentialProblem } from "../../src/policy/credentials.js";

describe("P3: the one rule for a credential parameter's name (policy/credentials.ts)", () => {
  it.each([
    // The earlier list.
    "key",
    "API_KEY",
    "apiKey",
    "token",
    "access_token",
    "id_token",
    "password",
    "pw",
    "secret",
    "client_secret",
    "private_key",
    "sig",
    "Signature",
    // Gateways' usual names (tester-edges).
    "subscription-key",
    "Ocp-Apim-Subscription-Key",
    "user_key",
    "app_key",
    "x-api-key",
    "access_key",
    "api_secret",
    "private_token",
    "oauth_token",
    "oauth_token_secret",
    "oauth_signature",
    "personal_access_token",
    "X-Amz-Credential",
    "X-Amz-Signature",
    "X-Amz-Security-Token",
    "X-Goog-Signature",
    "AWSAccessKeyId",
    "auth[token]",
    "ctl00$Main$txtPassword",
  ])("P3: %s is a credential's name", (name) => {
    expect(isCredentialParam(name)).toBe(true);
  });

  it.each([
    "keyword",
    "monkey",
    "turkey",
    "tokens",
    "keys",
    "pageToken",
    "nextPageToken",
    "resumptionToken",
    "continuation_token",
    "sortKey",
    "search_key",
    "sitekey",
    "publicKey",
    "csrf_token",
    "authenticity_token",
    "__RequestVerificationToken",
    "oauth_consumer_key",
    "client_id",
    "AccountKey",
    "client_key",
    "app_id",
    "X-Amz-Algorithm",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-SignedHeaders",
    "bypass",
    "compass",
    "jsessionid",
    "captcha_code",
  ])("P3: %s is a public parameter's name, not a credential's", (name) => {
    expect(isCredentialParam(name)).toBe(false);
  });

  it("P3: an S3 presigned URL is never sent (X-Amz-Credential named), a plain S3 object URL is", () => {
    const presigned = new URL(
      "https://b.s3.amazonaws.com/minutes.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20261206&X-Amz-Date=20261206T000000Z&X-Amz-Signature=ab12",
    );
    expect(requestCredentialProblem(presigned)).toContain('"X-Amz-Credential"');
    expect(
      requestCredentialProblem(new URL("https://b.s3.amazonaws.com/minutes.pdf?versionId=3")),
    ).toBeUndefined();
  });
});
