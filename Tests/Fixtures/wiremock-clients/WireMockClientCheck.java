import static com.github.tomakehurst.wiremock.client.WireMock.*;

import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Drives an Orrery port that speaks WireMock's admin API with WireMock's own Java client, unchanged.
 *
 * <p>{@code static PORT}: the client's static API ({@code configureFor}, {@code stubFor}, {@code verify}, ...).
 * {@code parallel PORT...}: one client instance per port, all at once, each seeing only its own stubs and requests.
 * Prints {@code OK} and exits 0, or throws.
 */
public class WireMockClientCheck {
    private static final HttpClient HTTP =
        HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).connectTimeout(Duration.ofSeconds(5)).build();

    static String fetch(int port, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    static void check(boolean condition, String what) {
        if (!condition) throw new AssertionError(what);
    }

    static void expect(String actual, String expected, String what) {
        if (!actual.equals(expected)) throw new AssertionError(what + ": expected '" + expected + "', got '" + actual + "'");
    }

    static void staticApi(int port) throws Exception {
        WireMock.configureFor("127.0.0.1", port);
        WireMock.reset();
        StubMapping hello = stubFor(get(urlEqualTo("/hello"))
            .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "text/plain").withBody("hello")));
        expect(fetch(port, "/hello"), "200 hello", "a stub added with stubFor");
        verify(1, getRequestedFor(urlEqualTo("/hello")));
        verify(0, postRequestedFor(urlEqualTo("/hello")));
        List<LoggedRequest> found = findAll(getRequestedFor(urlMatching("/hel.*")));
        check(found.size() == 1 && found.get(0).getUrl().equals("/hello"), "findAll finds the request");

        stubFor(get(urlPathEqualTo("/priority")).atPriority(5).willReturn(ok("low")));
        stubFor(get(urlPathEqualTo("/priority")).atPriority(1).willReturn(ok("high")));
        stubFor(get(urlPathEqualTo("/priority")).atPriority(3).willReturn(ok("middle")));
        expect(fetch(port, "/priority"), "200 high", "priority 1 wins");
        stubFor(get("/newest").willReturn(ok("first")));
        stubFor(get("/newest").willReturn(ok("second")));
        expect(fetch(port, "/newest"), "200 second", "among equal priorities the most recent wins");

        stubFor(get("/flow").inScenario("flow").whenScenarioStateIs(Scenario.STARTED).willReturn(ok("one"))
            .willSetStateTo("two"));
        stubFor(get("/flow").inScenario("flow").whenScenarioStateIs("two").willReturn(ok("two")));
        expect(fetch(port, "/flow"), "200 one", "scenario in Started");
        expect(fetch(port, "/flow"), "200 two", "scenario moved on");
        check(getAllScenarios().stream().anyMatch(s -> s.getName().equals("flow") && s.getState().equals("two")),
            "getAllScenarios lists the scenario in its state");
        resetAllScenarios();
        expect(fetch(port, "/flow"), "200 one", "scenarios reset");
        setScenarioState("flow", "two");
        expect(fetch(port, "/flow"), "200 two", "scenario state set");

        check(listAllStubMappings().getMappings().size() == 8, "listAllStubMappings lists every stub");
        removeStub(hello);
        check(fetch(port, "/hello").startsWith("404 "), "a removed stub no longer answers");
        check(fetch(port, "/nothing").startsWith("404 "), "a miss is a 404");
        check(findUnmatchedRequests().size() == 2, "two unmatched requests");
        editStub(get(urlEqualTo("/newest")).withId(listAllStubMappings().getMappings().stream()
            .filter(m -> m.getResponse().getBody() != null && m.getResponse().getBody().equals("second"))
            .findFirst().get().getId()).willReturn(ok("edited")));
        expect(fetch(port, "/newest"), "200 edited", "an edited stub answers");

        WireMock.reset();
        check(listAllStubMappings().getMappings().isEmpty(), "reset removes every stub");
        check(findAll(anyRequestedFor(anyUrl())).isEmpty(), "reset clears the journal");
        resetAllRequests();
    }

    static String instance(int port, String tag) throws Exception {
        WireMock client = new WireMock("127.0.0.1", port);
        client.register(get(urlEqualTo("/mine")).willReturn(ok(tag)));
        client.register(post(urlPathEqualTo("/orders")).withRequestBody(containing(tag)).willReturn(created()));
        expect(fetch(port, "/mine"), "200 " + tag, "each session answers with its own stub");
        HttpResponse<String> created = HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"from\": \"" + tag + "\"}")).build(),
            HttpResponse.BodyHandlers.ofString());
        check(created.statusCode() == 201, "a body pattern matches in session " + tag);
        client.verifyThat(1, getRequestedFor(urlEqualTo("/mine")));
        client.verifyThat(1, postRequestedFor(urlPathEqualTo("/orders")).withRequestBody(containing(tag)));
        check(client.allStubMappings().getMappings().size() == 2, "session " + tag + " sees its own two stubs only");
        check(client.find(anyRequestedFor(anyUrl())).size() == 2, "session " + tag + " sees its own two requests only");
        client.resetMappings();
        check(client.allStubMappings().getMappings().isEmpty(), "resetMappings");
        return tag;
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("static")) {
            staticApi(Integer.parseInt(args[1]));
        } else {
            ExecutorService pool = Executors.newFixedThreadPool(args.length - 1);
            List<Future<String>> runs = new ArrayList<>();
            for (int index = 1; index < args.length; index++) {
                int port = Integer.parseInt(args[index]);
                String tag = "session-" + index;
                runs.add(pool.submit(() -> instance(port, tag)));
            }
            for (Future<String> run : runs) run.get();
            pool.shutdown();
        }
        System.out.println("OK");
    }
}
