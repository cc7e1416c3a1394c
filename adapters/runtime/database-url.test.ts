import { describe, expect, it } from "bun:test";
import { displayDatabaseUrl } from "./database-url.ts";

describe("a database URL as messages show it (second probe, finding 8)", () => {
  it("hides the user-info password and every password-like query parameter, and keeps the rest", () => {
    expect(displayDatabaseUrl("postgres://svc:pw@db:5432/svc")).toBe("postgres://svc:***@db:5432/svc");
    expect(
      displayDatabaseUrl(
        "postgres://svc@db/svc?sslmode=require&password=q&PassWord=r&sslpassword=s&application_name=hub",
      ),
    ).toBe("postgres://svc@db/svc?sslmode=require&password=***&PassWord=***&sslpassword=***&application_name=hub");
    expect(displayDatabaseUrl("postgresql://db/svc?password=a&password=b&pwd=c")).toBe(
      "postgresql://db/svc?password=***&password=***&pwd=***",
    );
  });

  it("shows a URL without secrets as it is, and nothing of what is not a URL", () => {
    expect(displayDatabaseUrl("postgres://svc@db:5432/svc?sslmode=require")).toBe(
      "postgres://svc@db:5432/svc?sslmode=require",
    );
    expect(displayDatabaseUrl("postgres://svc:pw@[db/svc")).toBe("(not a URL)");
  });
});
