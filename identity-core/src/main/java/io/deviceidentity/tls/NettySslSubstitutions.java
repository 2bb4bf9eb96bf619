package io.deviceidentity.tls;

import java.security.PrivateKey;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Map;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

import com.oracle.svm.core.annotate.Alias;
import com.oracle.svm.core.annotate.Substitute;
import com.oracle.svm.core.annotate.TargetClass;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.CipherSuiteFilter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextOption;
import io.netty.handler.ssl.SslProvider;

/**
 * GraalVM native-image substitutions for the Netty the root pom pins (newer than the Quarkus BOM's, for its security
 * fixes). Never loaded on the JVM: the native-image builder finds the {@link TargetClass} classes on the classpath.
 *
 * <p>In a native image Netty's TLS is the JDK's only: Quarkus substitutes {@code SslContext}'s context factories with
 * ones that build {@code JdkSsl*Context}s, so that the OpenSSL classes (tcnative, absent from the image) are never
 * reached. Netty 4.1.137 added an overload of the client factory with a {@code startTls} parameter, and the builder
 * now calls that one; Quarkus 3.33's substitutions cover only the older overload, so without this one the analysis
 * reaches {@code ReferenceCountedOpenSslClientContext} and, with {@code --link-at-build-time}, the build fails on the
 * missing {@code io/netty/internal/tcnative/SSLPrivateKeyMethod}.
 *
 * <p>It goes when Quarkus's own Netty substitutions cover the overload: the builder then refuses two substitutions of
 * one method, and {@code NettySslSubstitutionsTest} says so before that. It is kept in step with the Netty on the
 * classpath by the same test (each substituted or aliased member must exist there, as the builder requires) and by
 * {@code make native-analysis}.
 */
final class NettySslSubstitutions {

    private NettySslSubstitutions() {
    }

    @TargetClass(className = "io.netty.handler.ssl.SslContext")
    static final class Target_io_netty_handler_ssl_SslContext {

        /**
         * What Quarkus's substitution of the older overload does: the JDK provider whatever {@code provider} asks
         * for, and no OCSP (the JDK provider has none). This is also Netty's own JDK branch of the overload, which
         * passes {@code startTls} only to its OpenSSL client contexts.
         */
        @Substitute
        @SafeVarargs
        static SslContext newClientContextInternal(SslProvider provider, Provider sslContextProvider,
                X509Certificate[] trustCert, TrustManagerFactory trustManagerFactory, X509Certificate[] keyCertChain,
                PrivateKey key, String keyPassword, KeyManagerFactory keyManagerFactory, Iterable<String> ciphers,
                CipherSuiteFilter cipherFilter, ApplicationProtocolConfig apn, String[] protocols,
                long sessionCacheSize, long sessionTimeout, boolean startTls, boolean enableOcsp,
                SecureRandom secureRandom, String keyStoreType, String endpointIdentificationAlgorithm,
                Map.Entry<SslContextOption<?>, Object>... options) throws SSLException {
            if (enableOcsp) {
                throw new IllegalArgumentException("OCSP is not supported with this SslProvider: " + provider);
            }
            return (SslContext) (Object) new Target_io_netty_handler_ssl_JdkSslClientContext(sslContextProvider,
                    trustCert, trustManagerFactory, keyCertChain, key, keyPassword, keyManagerFactory, ciphers,
                    cipherFilter, apn, protocols, sessionCacheSize, sessionTimeout, secureRandom, keyStoreType,
                    endpointIdentificationAlgorithm, new Target_io_netty_handler_ssl_ResumptionController());
        }
    }

    @TargetClass(className = "io.netty.handler.ssl.JdkSslClientContext")
    static final class Target_io_netty_handler_ssl_JdkSslClientContext {

        @Alias
        Target_io_netty_handler_ssl_JdkSslClientContext(Provider sslContextProvider,
                X509Certificate[] trustCertCollection, TrustManagerFactory trustManagerFactory,
                X509Certificate[] keyCertChain, PrivateKey key, String keyPassword,
                KeyManagerFactory keyManagerFactory, Iterable<String> ciphers, CipherSuiteFilter cipherFilter,
                ApplicationProtocolConfig apn, String[] protocols, long sessionCacheSize, long sessionTimeout,
                SecureRandom secureRandom, String keyStoreType, String endpointIdentificationAlgorithm,
                Target_io_netty_handler_ssl_ResumptionController resumptionController) throws SSLException {
        }
    }

    @TargetClass(className = "io.netty.handler.ssl.ResumptionController")
    static final class Target_io_netty_handler_ssl_ResumptionController {

        @Alias
        Target_io_netty_handler_ssl_ResumptionController() {
        }
    }
}
