import java.io.*;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.aggregates.StatisticsEquivalenceClasses;
import org.deidentifier.arx.criteria.*;

/**
 * ARX 3.9.2 as a peer that runs one anonymization per request with SEVERAL privacy criteria and
 * possibly several sensitive attributes (benchmarks/bench_lattice_criteria.py), so that a Python
 * benchmark can alternate ARX and anonlab in one run.
 *
 * Usage: java -cp build:arx/lib/* ArxCriteria DATA_DIR REPLICATION
 * Compile together with ../shared/arx/ArxBench.java (its QIS, the quasi-identifiers in order).
 * The CSV and ARX's hierarchies are read (and the rows replicated) once, before any timing, as
 * ArxBench does. Then, per line read from stdin, "SUPPRESSION CRITERION [CRITERION ...]" with
 * CRITERION one of
 *   k=K                    new KAnonymity(K)
 *   distinct-l=L:ATTR      new DistinctLDiversity(ATTR, L)
 *   equal-t=T:ATTR         new EqualDistanceTCloseness(ATTR, T)
 * it builds a fresh Data (the QIs with ArxBench's hierarchies; every attribute a criterion names
 * SENSITIVE_ATTRIBUTE; the other columns INSENSITIVE_ATTRIBUTE), a fresh ARXConfiguration with
 * every criterion added and ARX's default Loss, times ARXAnonymizer.anonymize() (which includes
 * ARX's dictionary encoding) and writes one line:
 * "ms=... cpu_ms=... levels=a,b,... classes=... suppressed=... loss=... checked=..." (cpu_ms: the
 * calling thread's CPU time over the same call, ThreadMXBean, which leaves out the JVM's GC and JIT
 * threads; levels in ArxBench's QIS order; loss as Double.toString, every digit), or
 * "ms=... cpu_ms=... none" when no node satisfies all.
 * An empty line or end of input ends it.
 */
public class ArxCriteria {
    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int rep = Integer.parseInt(args[1]);
        List<String> lines = Files.readAllLines(Paths.get(dir, "adult.csv"), StandardCharsets.UTF_8);
        String[] header = lines.get(0).split(";", -1);
        List<String[]> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) if (!lines.get(i).isEmpty()) rows.add(lines.get(i).split(";", -1));
        List<String[]> table = new ArrayList<>(1 + rows.size() * rep);
        table.add(header);
        for (int r = 0; r < rep; r++) table.addAll(rows);
        Map<String, String[][]> hier = new HashMap<>();
        for (String qi : ArxBench.QIS)
            hier.put(qi, Hierarchy.create(new File(dir, "adult_hierarchy_" + qi + ".csv"), StandardCharsets.UTF_8, ';').getHierarchy());
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        out.printf("ready java=%s rows=%d%n", System.getProperty("java.version"), table.size() - 1);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        String line;
        while ((line = in.readLine()) != null && !line.isBlank()) {
            String[] request = line.trim().split("\\s+");
            double supp = Double.parseDouble(request[0]);
            ARXConfiguration cfg = ARXConfiguration.create();
            Set<String> sensitive = new HashSet<>();
            for (int i = 1; i < request.length; i++) {
                String[] kv = request[i].split("=", 2);
                String[] valueAttr = kv[1].split(":", 2);
                switch (kv[0]) {
                    case "k":
                        cfg.addPrivacyModel(new KAnonymity(Integer.parseInt(kv[1])));
                        break;
                    case "distinct-l":
                        cfg.addPrivacyModel(new DistinctLDiversity(valueAttr[1], Integer.parseInt(valueAttr[0])));
                        sensitive.add(valueAttr[1]);
                        break;
                    case "equal-t":
                        cfg.addPrivacyModel(new EqualDistanceTCloseness(valueAttr[1], Double.parseDouble(valueAttr[0])));
                        sensitive.add(valueAttr[1]);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown criterion " + request[i]);
                }
            }
            cfg.setSuppressionLimit(supp);
            Data data = Data.create(table);
            DataDefinition def = data.getDefinition();
            List<String> qis = Arrays.asList(ArxBench.QIS);
            for (String column : header) {
                if (qis.contains(column)) def.setAttributeType(column, Hierarchy.create(hier.get(column)));
                else if (sensitive.contains(column)) def.setAttributeType(column, AttributeType.SENSITIVE_ATTRIBUTE);
                else def.setAttributeType(column, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
            ARXAnonymizer anonymizer = new ARXAnonymizer();
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            ARXResult res = anonymizer.anonymize(data, cfg);
            long t1 = System.nanoTime();
            long c1 = threads.getCurrentThreadCpuTime();
            ARXLattice.ARXNode opt = res.getGlobalOptimum();
            if (opt == null) {
                out.printf("ms=%.3f cpu_ms=%.3f none%n", (t1 - t0) / 1e6, (c1 - c0) / 1e6);
                continue;
            }
            String[] found = opt.getQuasiIdentifyingAttributes();
            int[] tr = opt.getTransformation();
            StringBuilder levels = new StringBuilder();
            for (int i = 0; i < ArxBench.QIS.length; i++) {
                int at = Arrays.asList(found).indexOf(ArxBench.QIS[i]);
                levels.append(tr[at]).append(i + 1 < ArxBench.QIS.length ? "," : "");
            }
            StatisticsEquivalenceClasses ec = res.getOutput(opt, false).getStatistics().getEquivalenceClassStatistics();
            out.printf("ms=%.3f cpu_ms=%.3f levels=%s classes=%d suppressed=%d loss=%s checked=%d%n",
                    (t1 - t0) / 1e6, (c1 - c0) / 1e6, levels, ec.getNumberOfEquivalenceClasses(),
                    ec.getNumberOfSuppressedRecords(), opt.getHighestScore().toString(),
                    res.getProcessStatistics().getTransformationsChecked());
        }
    }
}
